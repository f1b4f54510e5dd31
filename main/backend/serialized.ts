/**
 * A handler's answer that is already JSON text: the router sends it as it is (`{ ok: true, json }`
 * over IPC, spliced into the frame in browser mode; common/result.ts WireResult), never parsing or
 * writing it again on main's thread. For answers of megabytes that another thread serialized (the
 * cache's tree reader keeps whole trees serialized). `T` is what the text parses to, for the
 * handler's type.
 */
export class Serialized<T> {
  /** Only for the type: what `json` parses to. */
  declare readonly value?: T;

  constructor(readonly json: string) {}
}
