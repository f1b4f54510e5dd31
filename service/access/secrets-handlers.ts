/**
 * Location and part secrets (docs/PROTOCOL.md section 11, "Locations" and "Machines and machine
 * parts"). The last secret of a location or part may be deleted too: the spec names no error for
 * it, and an owner revoking a leaked secret must not be made to create another first. Part secrets
 * live with the parts (machines/store.ts, which keeps each change in the part's history); what this
 * domain needs of them is handed in by server.ts.
 */
import { status } from '@grpc/grpc-js';
import type { AppServiceService } from '../../proto/gen/fleet/app/v1/app';
import type { EditorInfo } from '../../proto/gen/fleet/app/v1/access';
import type { RobotPart } from '../../proto/gen/fleet/app/v1/machines';
import { FleetError, present, Reason } from '../errors';
import { partOf, targetOf } from '../permissions/resources';
import type { Caller, CallContext, UnaryHandlers } from '../rpc';
import type { LocationSecrets } from './secrets';

/** What the secret operations need of the parts (machines/store.ts). */
export interface PartSecrets {
  /** The part as the wire shows it, secrets included. */
  part(id: string): { part: RobotPart } | undefined;
  /** Add a secret (the part's state before goes to its history). */
  addSecret(partId: string, editor: EditorInfo): void;
  /** Delete a secret (with a history entry); false when the part has no such secret. */
  deleteSecret(partId: string, secretId: string, editor: EditorInfo): boolean;
}

function secretNotFound(of: string): FleetError {
  // The id is not quoted back: a caller that pastes a secret's value where its id belongs must not see it in logs and reports.
  return new FleetError(status.NOT_FOUND, Reason.SECRET_NOT_FOUND, `${of} has no secret of that id (secret ids are listed by LocationAuth and on the part)`, 'secret_id');
}

export function createSecretHandlers(locations: LocationSecrets, parts: PartSecrets, editorOf: (caller: Caller) => EditorInfo): UnaryHandlers<typeof AppServiceService, CallContext> {
  return {
    async locationAuth(_request, ctx) {
      const id = targetOf(ctx, 'location').id;
      return { auth: { locationId: id, secrets: locations.list(id) } };
    },

    async createLocationSecret(_request, ctx) {
      const id = targetOf(ctx, 'location').id;
      locations.create(id);
      return { auth: { locationId: id, secrets: locations.list(id) } };
    },

    async deleteLocationSecret(request, ctx) {
      const location = targetOf(ctx, 'location');
      if (!locations.delete(location.id, request.secretId)) throw secretNotFound(`location ${location.id}`);
      return {};
    },

    async createRobotPartSecret(_request, ctx) {
      const id = partOf(ctx).id;
      parts.addSecret(id, editorOf(ctx.caller));
      return { part: present(parts.part(id), `part ${id}`).part };
    },

    async deleteRobotPartSecret(request, ctx) {
      const id = partOf(ctx).id;
      if (!parts.deleteSecret(id, request.secretId, editorOf(ctx.caller))) throw secretNotFound(`part ${id}`);
      return {};
    },
  };
}
