/**
 * How the loopback server's upload endpoint is told that a file was not kept: the server owns this
 * contract (each refusal has its HTTP status) and whoever stages the files (the registry's upload
 * queue) throws it, so the server needs no domain.
 */
import { AppError } from '../backend/errors';

/** Why a file was not staged; server.ts answers each with its own HTTP status. */
export type StagingRefusal = 'too-large' | 'incomplete' | 'no-room' | 'disk-full';

/** A file the page sent was not kept: the message says what happened and what to do, for the page to show. */
export class StagingError extends AppError {
  constructor(
    readonly refusal: StagingRefusal,
    message: string,
  ) {
    super(refusal === 'disk-full' ? 'internal' : refusal === 'no-room' ? 'conflict' : 'invalid', message);
  }
}
