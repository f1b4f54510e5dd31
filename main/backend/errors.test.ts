import { Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { describeUnreachable, fromServiceError, kindOfStatus } from './errors';

describe('kindOfStatus', () => {
  it.each([
    [status.UNAUTHENTICATED, 'unauthenticated'],
    [status.PERMISSION_DENIED, 'permission-denied'],
    [status.NOT_FOUND, 'not-found'],
    [status.INVALID_ARGUMENT, 'invalid'],
    [status.FAILED_PRECONDITION, 'invalid'],
    [status.ALREADY_EXISTS, 'conflict'],
    [status.ABORTED, 'conflict'],
    [status.UNAVAILABLE, 'offline'],
    [status.DEADLINE_EXCEEDED, 'offline'],
    [status.UNIMPLEMENTED, 'internal'],
    [status.INTERNAL, 'internal'],
  ])('status %i is %s', (code, kind) => {
    expect(kindOfStatus(code)).toBe(kind);
  });
});

describe('describeUnreachable', () => {
  it.each([
    [status.UNAVAILABLE, 'No connection established. Last error: Error: connect ECONNREFUSED 127.0.0.1:1. Resolution note: ', 'nothing is listening at that address (connection refused)'],
    [status.UNAVAILABLE, 'Name resolution failed for target dns:nowhere.invalid:443: Error: getaddrinfo ENOTFOUND nowhere.invalid', 'its host name could not be resolved'],
    [status.DEADLINE_EXCEEDED, 'Deadline exceeded after 8.001s', 'it did not answer in time'],
    [status.UNAVAILABLE, 'No connection established. Last error: Error: write EPROTO SSL routines: wrong version number', 'the secure connection failed (is TLS on for a service without it, or off for one that needs it?)'],
    [status.UNAVAILABLE, 'Connection dropped', 'the connection was dropped'],
    [status.UNAVAILABLE, 'something new', 'it is unavailable (something new)'],
  ])('%i %s', (code, detail, expected) => {
    expect(describeUnreachable(code, detail)).toBe(expected);
  });
});

describe('fromServiceError', () => {
  const failure = (code: status, details: string, reason?: string): ServiceError => {
    const metadata = new Metadata();
    if (reason !== undefined) metadata.set('fleet-error-reason', reason);
    return Object.assign(new Error(details), { code, details, metadata });
  };

  it('keeps the service\'s reason, so a handler tells a stale update from a taken name (both conflict)', () => {
    const stale = fromServiceError(failure(status.ABORTED, 'changed since', 'STALE_UPDATE'), 'save the config', '127.0.0.1:1');
    expect(stale).toMatchObject({ kind: 'conflict', reason: 'STALE_UPDATE', message: 'Could not save the config: changed since' });
    expect(fromServiceError(failure(status.ALREADY_EXISTS, 'taken', 'NAME_TAKEN'), 'rename', 'a:1').reason).toBe('NAME_TAKEN');
  });

  it('has no reason when the service gave none', () => {
    expect(fromServiceError(failure(status.UNAVAILABLE, 'Connection dropped'), 'read', 'a:1').reason).toBeNull();
    expect(fromServiceError(failure(status.INTERNAL, 'boom', ''), 'read', 'a:1').reason).toBeNull();
  });
});
