import type { Migration } from '../migrate';
import { tokenSigningSecret } from './0001_token_signing_secret';
import { apiKeys } from './0002_api_keys';
import { organizations } from './0003_organizations';
import { apiKeyHashSecret } from './0004_api_key_hash_secret';

/** The fleet service's schema, oldest step first. Append new steps; never edit a released one. */
export const serviceMigrations: readonly Migration[] = [tokenSigningSecret, apiKeys, organizations, apiKeyHashSecret];
