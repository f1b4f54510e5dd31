/**
 * The registry's bridge channels. Reads and writes alike need the service: the registry is what an
 * operator publishes to, so it is not cached for offline browsing (an offline read says so).
 * Uploads are main/registry/uploads.ts's; these channels only hand them over.
 */
import type { DomainHandlers } from '../backend/router';
import type { BackendContext } from '../backend/context';
import { online, write } from '../backend/calls';
import { AppError } from '../backend/errors';
import type { FleetClient } from '../grpc/client';
import { appBrandingFromWire, appContentFromWire, appToWire, appTypeToWire, itemFromWire, moduleFromWire, versionFromWire, packageTypeToWire, statusToWire, visibilityToWire } from './convert';
import type { RegistryUploads } from './uploads';

type RegistryChannel =
  | 'registry.list'
  | 'registry.get'
  | 'registry.create'
  | 'registry.update'
  | 'registry.delete'
  | 'registry.modules'
  | 'registry.versions'
  | 'registry.module'
  | 'registry.createModule'
  | 'registry.updateModule'
  | 'registry.appContent'
  | 'registry.appBranding'
  | 'registry.pickFiles'
  | 'registry.inspect'
  | 'registry.upload'
  | 'registry.uploads'
  | 'registry.cancelUpload'
  | 'registry.retryUpload'
  | 'registry.removeUpload'
  | 'registry.discardStaged';

async function getItem(client: FleetClient, itemId: string, markdown: boolean) {
  const response = await client.call('read the registry item', client.app.getRegistryItem, { itemId, includeMarkdownDocumentation: markdown });
  if (!response.item) throw new AppError('internal', 'The service answered GetRegistryItem without an item.');
  return itemFromWire(response.item);
}

async function getModule(client: FleetClient, moduleId: string) {
  const response = await client.call('read the module', client.app.getModule, { moduleId });
  if (!response.module) throw new AppError('internal', 'The service answered GetModule without a module.');
  return response.module;
}

export function registryHandlers(ctx: BackendContext, uploads: RegistryUploads): DomainHandlers<RegistryChannel> {
  const { connection } = ctx;
  return {
    'registry.list': (r) =>
      online(connection, 'list the registry', async (client) => {
        const response = await client.call('list the registry', client.app.listRegistryItems, {
          organizationId: r.orgId,
          types: r.types.map(packageTypeToWire),
          visibilities: r.visibilities.map(visibilityToWire),
          platforms: [...r.platforms],
          statuses: r.statuses.map(statusToWire),
          searchTerm: r.search,
          pageToken: r.pageToken,
          publicNamespaces: [],
          pageSize: r.pageSize,
          includeVersions: false,
        });
        return { items: response.items.map(itemFromWire), nextPageToken: response.nextPageToken };
      }),

    'registry.get': ({ itemId, markdown }) => online(connection, 'read the registry item', (client) => getItem(client, itemId, markdown)),

    'registry.create': ({ orgId, name, type }) =>
      write(connection, 'create the registry item', async (client) => {
        await client.call('create the registry item', client.app.createRegistryItem, { organizationId: orgId, name, type: packageTypeToWire(type) });
        // CreateRegistryItem answers nothing (as the spec has it): the id is `<org id>:<name>`, which the service accepts in either form.
        return getItem(client, `${orgId}:${name}`, false);
      }),

    'registry.update': ({ itemId, type, description, visibility, url }) =>
      write(connection, 'update the registry item', async (client) => {
        await client.call('update the registry item', client.app.updateRegistryItem, { itemId, type: packageTypeToWire(type), description, visibility: visibilityToWire(visibility), url });
        return getItem(client, itemId, false);
      }),

    'registry.delete': ({ itemId }) =>
      write(connection, 'delete the registry item', async (client) => {
        await client.call('delete the registry item', client.app.deleteRegistryItem, { itemId });
        return null;
      }),

    'registry.modules': ({ orgId, pageToken, pageSize }) =>
      online(connection, 'list the modules', async (client) => {
        const response = await client.call('list the modules', client.app.listModules, { orgId, pageToken, pageSize });
        return { items: response.modules.map(moduleFromWire), nextPageToken: response.nextPageToken };
      }),

    'registry.versions': ({ itemId }) =>
      online(connection, 'list the versions', async (client) => {
        const response = await client.call('list the versions', client.app.listRegistryItemVersions, { itemId });
        return response.versions.map(versionFromWire);
      }),

    'registry.module': ({ moduleId }) => online(connection, 'read the module', async (client) => moduleFromWire(await getModule(client, moduleId))),

    'registry.createModule': ({ orgId, name }) =>
      write(connection, 'create the module', async (client) => {
        const response = await client.call('create the module', client.app.createModule, { orgId, name });
        return { moduleId: response.moduleId, url: response.url };
      }),

    'registry.updateModule': (r) =>
      write(connection, 'update the module', async (client) => {
        // UpdateModule replaces the manifest whole: what the app does not edit (an app's text
        // customizations) is carried over from the module as it is.
        const current = await getModule(client, r.moduleId);
        const apps = r.apps.map((app) => ({ ...appToWire(app), customizations: current.apps.find((a) => a.name === app.name)?.customizations ?? {}, type: appTypeToWire(app.type) }));
        await client.call('update the module', client.app.updateModule, {
          moduleId: r.moduleId,
          url: r.url,
          description: r.description,
          models: r.models.map((m) => ({ api: m.api, model: m.model })),
          entrypoint: r.entrypoint,
          public: r.visibility === 'public',
          apps,
          firstRun: r.firstRun,
        });
        return moduleFromWire(await getModule(client, r.moduleId));
      }),

    'registry.appContent': ({ publicNamespace, name }) =>
      online(connection, 'read the app', async (client) => {
        const response = await client.call('read the app', client.app.getAppContent, { publicNamespace, name });
        if (!response.content) throw new AppError('internal', 'The service answered GetAppContent without content.');
        return appContentFromWire(response.content);
      }),

    'registry.appBranding': ({ publicNamespace, name }) =>
      online(connection, "read the app's branding", async (client) => {
        const response = await client.call("read the app's branding", client.app.getAppBranding, { publicNamespace, name });
        if (!response.branding) throw new AppError('internal', 'The service answered GetAppBranding without branding.');
        return appBrandingFromWire(response.branding);
      }),

    'registry.pickFiles': async () => {
      if (!ctx.chooseOpenPaths) return null;
      const paths = await ctx.chooseOpenPaths({ title: 'Upload module files', filters: [{ name: 'Module archives', extensions: ['gz', 'tgz'] }] });
      if (paths.length === 0) return [];
      return uploads.inspect(paths.map((path) => ({ path })));
    },

    'registry.inspect': ({ sources }) => uploads.inspect(sources),
    'registry.upload': (request) => uploads.add(request),
    'registry.uploads': () => uploads.list(),
    'registry.cancelUpload': ({ uploadId }) => uploads.cancel(uploadId),
    'registry.retryUpload': ({ uploadId }) => uploads.retry(uploadId),
    'registry.removeUpload': ({ uploadId }) => uploads.remove(uploadId),
    'registry.discardStaged': ({ stagedId }) => uploads.discardStaged(stagedId),
  };
}
