import type { Migration } from '../../../db/migrate';
import syncState from './0001_sync_state';
import organizations from './0002_organizations';
import fleet from './0003_fleet';
import metadata from './0004_metadata';
import uiState from './0005_ui_state';
import logs from './0006_logs';
import logsFtsPending from './0007_logs_fts_pending';
import logsIdentityLookup from './0008_logs_identity_lookup';
import logsByPartLevels from './0009_logs_by_part_levels';
import training from './0010_training';
import partConfigs from './0011_part_configs';
import partHistory from './0012_part_history';
import fragments from './0013_fragments';
import machineFragments from './0014_machine_fragments';
import partConfigDrafts from './0015_part_config_drafts';
import fragmentDrafts from './0016_fragment_drafts';
import access from './0017_access';
import trainingChanged from './0018_training_changed';
import treeCovering from './0019_tree_covering';
import treePartsNarrow from './0020_tree_parts_narrow';

/** Every schema step of the cache, in order. A step, once shipped, is never edited: add the next one. */
export const cacheMigrations: readonly Migration[] = [syncState, organizations, fleet, metadata, uiState, logs, logsFtsPending, logsIdentityLookup, logsByPartLevels, training, partConfigs, partHistory, fragments, machineFragments, partConfigDrafts, fragmentDrafts, access, trainingChanged, treeCovering, treePartsNarrow];
