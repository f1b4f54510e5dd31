/**
 * Fleet configs, shared by the service and the desktop app: the shape and bounds of a part or
 * fragment config, its `fragments` and `fragment_mods`, fragment versions and tags, and resolving a
 * config to its effective config with provenance. Pure TypeScript: it imports nothing of ours and
 * no Node API (eslint.config.js, the fleetconfig/ block), so both service/ and main/ may import it.
 */
export * from './json';
export * from './refs';
export * from './resolve';
