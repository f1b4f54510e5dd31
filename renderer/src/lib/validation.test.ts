import { expect, test } from 'vitest';
import { requestSchemas } from '../../../common/channels';
import { fieldErrors } from './validation';

test('the contract’s messages become one sentence per field', () => {
  const parsed = requestSchemas['profiles.add'].safeParse({ name: ' ', address: 'nohost', tls: true, apiKeyId: 'k', apiKey: '' });
  expect(parsed.success).toBe(false);
  if (parsed.success) return;
  const errors = fieldErrors(parsed.error);
  expect(errors.name).toBe('Must not be empty.');
  expect(errors.address).toBe('Must be host:port, for example fleet.example.com:443.');
  expect(errors.apiKey).toBe('Must not be empty.');
  expect(errors.apiKeyId).toBeUndefined();
});
