/**
 * UploadModuleFileRequest messages framed by hand for the upload stream (FleetClient.uploadStream
 * sends the bytes given, with an identity serializer). A chunk message is `file` (field 2, bytes)
 * alone: its tag, its length as a varint, then the chunk. Laying that header before the chunk in
 * one buffer lets the file be read from disk straight into the message, so a chunk is copied once
 * on its way out (grpc-js framing it), not also by the generated encoder (which copies every bytes
 * field into its own buffer). The wire bytes are the same the generated encoder writes:
 * upload-frames.test.ts decodes them with the generated decoder.
 */
import { UploadModuleFileRequest } from '../../proto/gen/fleet/app/v1/registry';

/** Field 2 (`file`), wire type 2 (length-delimited). */
const FILE_TAG = (2 << 3) | 2;

/** Bytes of `n` as a protobuf varint. */
function varintBytes(n: number): number {
  let bytes = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 128);
    bytes += 1;
  }
  return bytes;
}

/** A chunk message being filled: `message` is what is sent, `body` (a view into it) is where the chunk's bytes go. */
export interface ChunkFrame {
  readonly message: Buffer;
  readonly body: Buffer;
}

/** A message for a chunk of `n` bytes, its header written, its body (`n` bytes) to be filled by the caller (a file read). */
export function chunkFrame(n: number): ChunkFrame {
  const header = 1 + varintBytes(n);
  const message = Buffer.allocUnsafe(header + n);
  message[0] = FILE_TAG;
  let at = 1;
  let left = n;
  while (left >= 0x80) {
    message[at++] = (left & 0x7f) | 0x80;
    left = Math.floor(left / 128);
  }
  message[at] = left;
  return { message, body: message.subarray(header) };
}

/** Any request (the first one, with module_file_info and write_offset) in the generated encoder's bytes, as a Buffer. */
export function encodeUploadRequest(request: UploadModuleFileRequest): Buffer {
  const bytes = UploadModuleFileRequest.encode(request).finish();
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
