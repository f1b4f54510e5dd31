import type { Migration } from '../../../db/migrate';
import { tokenSigningSecret } from './0001_token_signing_secret';
import { apiKeys } from './0002_api_keys';
import { organizations } from './0003_organizations';
import { apiKeyHashSecret } from './0004_api_key_hash_secret';
import { locations } from './0005_locations';
import { machines } from './0006_machines';
import { logs } from './0007_logs';
import { logCounts } from './0008_log_counts';
import { registry } from './0009_registry';
import { training } from './0010_training';
import { partHistory } from './0011_part_history';
import { fragments } from './0012_fragments';
import { defaultFragments } from './0013_default_fragments';
import { users } from './0014_users';
import { keysAndSecrets } from './0015_keys_and_secrets';
import { partModuleRefs } from './0016_part_module_refs';
import { trainingModified } from './0017_training_modified';

/** The fleet service's schema, oldest step first. Append new steps; never edit a released one. */
export const serviceMigrations: readonly Migration[] = [tokenSigningSecret, apiKeys, organizations, apiKeyHashSecret, locations, machines, logs, logCounts, registry, training, partHistory, fragments, defaultFragments, users, keysAndSecrets, partModuleRefs, trainingModified];
