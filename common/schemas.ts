import { z } from 'zod';

/** An identifier of a resource of the service (organization, location, profile, …). */
export const id = z.string().trim().min(1, 'must not be empty').max(200, 'is too long');

/** A request that carries nothing. Strict, so stray fields are rejected rather than ignored. */
export const empty = z.object({}).strict();

/** `host:port`, as a gRPC target: a host name, IPv4 or bracketed IPv6, and a port 1–65535. */
export const serviceAddress = z
  .string()
  .trim()
  .regex(/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/, 'must be host:port, for example fleet.example.com:443')
  .refine((v) => {
    const port = Number(v.slice(v.lastIndexOf(':') + 1));
    return port >= 1 && port <= 65535;
  }, 'port must be between 1 and 65535');

/** ISO-8601 instant, as every timestamp crosses the bridge (JSON has no dates). */
export type IsoTime = string;
