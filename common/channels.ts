/**
 * The bridge contract: one map of every channel, assembled from the per-domain contracts.
 * main implements a handler for each (a missing or mistyped one fails to compile), the preload
 * forwards exactly these names, and the renderer calls them through `FleetBridge`.
 * A new domain adds its file and one line in each of `requestSchemas` and `Responses`, and its channels'
 * names to common/channel-names.ts (the compiler says which are missing).
 */
import type { z } from 'zod';
import { accessRequests, type AccessResponses } from './access';
import { configRequests, type ConfigResponses } from './config';
import { connectionRequests, type ConnectionResponses } from './connection';
import { fragmentsRequests, type FragmentsResponses } from './fragments';
import { localServiceRequests, type LocalServiceResponses } from './local-service';
import { locationsRequests, type LocationsResponses } from './locations';
import { logsRequests, type LogsResponses } from './logs';
import { machinesRequests, type MachinesResponses } from './machines';
import { orgsRequests, type OrgsResponses } from './orgs';
import { profilesRequests, type ProfilesResponses } from './profiles';
import { registryRequests, type RegistryResponses } from './registry';
import { trainingRequests, type TrainingResponses } from './training';
import { uiRequests, type UiResponses } from './ui';

/** The schema that main parses each channel's payload with before any handler sees it. */
export const requestSchemas = {
  ...profilesRequests,
  ...connectionRequests,
  ...localServiceRequests,
  ...orgsRequests,
  ...locationsRequests,
  ...machinesRequests,
  ...logsRequests,
  ...registryRequests,
  ...trainingRequests,
  ...configRequests,
  ...fragmentsRequests,
  ...accessRequests,
  ...uiRequests,
} as const;

/** What each channel answers with (inside the result envelope). */
export type Responses = ProfilesResponses &
  ConnectionResponses &
  LocalServiceResponses &
  OrgsResponses &
  LocationsResponses &
  MachinesResponses &
  LogsResponses &
  RegistryResponses &
  TrainingResponses &
  ConfigResponses &
  FragmentsResponses &
  AccessResponses &
  UiResponses;

export type ChannelName = keyof typeof requestSchemas;

/** What the renderer passes. */
export type RequestOf<K extends ChannelName> = z.input<(typeof requestSchemas)[K]>;
/** What a handler receives: the payload after parsing (trimmed, defaults applied). */
export type ParsedRequestOf<K extends ChannelName> = z.output<(typeof requestSchemas)[K]>;
export type ResponseOf<K extends ChannelName> = Responses[K];

// Every channel has a response type and every response type a channel: either side missing fails here.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const _everyChannelAnswers: Same<ChannelName, keyof Responses> = true;
void _everyChannelAnswers;
