import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UploadModuleFileRequest } from '../../proto/gen/fleet/app/v1/registry';
import { chunkFrame, encodeUploadRequest } from './upload-frames';

/** A chunk message as the app sends it: the frame's body filled with `bytes`. */
function framed(bytes: Uint8Array): Buffer {
  const frame = chunkFrame(bytes.length);
  frame.body.set(bytes);
  return frame.message;
}

describe('chunkFrame', () => {
  it('writes the bytes the generated encoder writes, for chunk sizes around every varint length and the largest chunk', () => {
    for (const n of [0, 1, 127, 128, 129, 16_383, 16_384, 65_536, 1024 * 1024 - 1, 1024 * 1024, 2_097_151, 2_097_152]) {
      const bytes = Buffer.from(new Uint8Array(n).map((_, i) => (i * 31 + n) & 0xff));
      expect(framed(bytes).compare(encodeUploadRequest({ moduleFile: { $case: 'file', value: bytes }, writeOffset: 0 })), `${n} bytes`).toBe(0);
    }
  });

  it('decodes with the generated decoder to the chunk message, whatever the chunk', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 40_000 }), (bytes) => {
        const decoded = UploadModuleFileRequest.decode(framed(bytes));
        expect(decoded.writeOffset).toBe(0);
        expect(decoded.moduleFile?.$case).toBe('file');
        expect(Buffer.from(decoded.moduleFile?.$case === 'file' ? decoded.moduleFile.value : new Uint8Array())).toEqual(Buffer.from(bytes));
      }),
      { numRuns: 200 },
    );
  });

  it('frames any window of a file read into its body: the message is header then exactly those bytes', () => {
    const file = Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 7) & 0xff));
    fc.assert(
      fc.property(fc.integer({ min: 0, max: file.length }), fc.integer({ min: 0, max: 200_000 }), (offset, size) => {
        const n = Math.min(size, file.length - offset);
        const frame = chunkFrame(n);
        file.copy(frame.body, 0, offset, offset + n);
        expect(frame.body.length).toBe(n);
        expect(frame.message.length - frame.body.length).toBe(n < 128 ? 2 : n < 16_384 ? 3 : 4);
        const decoded = UploadModuleFileRequest.decode(frame.message);
        expect(decoded.moduleFile?.$case === 'file' && Buffer.from(decoded.moduleFile.value).equals(file.subarray(offset, offset + n))).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});

describe('encodeUploadRequest', () => {
  it('gives the first message (module_file_info, write_offset) in bytes the generated decoder reads back', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string(), fc.nat({ max: 512 * 1024 * 1024 }), (moduleId, version, platform, writeOffset) => {
        const request: UploadModuleFileRequest = { moduleFile: { $case: 'moduleFileInfo', value: { moduleId, version, platform } }, writeOffset };
        const bytes = encodeUploadRequest(request);
        expect(Buffer.isBuffer(bytes)).toBe(true);
        expect(UploadModuleFileRequest.decode(bytes)).toEqual(request);
      }),
    );
  });
});
