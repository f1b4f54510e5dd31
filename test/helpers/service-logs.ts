/**
 * A part's whole log as the service keeps it (GetRobotPartLogs, every page): what the tests compare
 * the app's cache with.
 */
import type { FleetClient } from '../../main/grpc/client';
import { GetRobotPartLogsRequest } from '../../proto/gen/fleet/app/v1/logs';

/** Every entry the service holds for `partId`, newest first as it pages them: id and time. */
export async function serviceLogEntries(client: FleetClient, partId: string): Promise<{ id: string; timeMs: number }[]> {
  const out: { id: string; timeMs: number }[] = [];
  let pageToken = '';
  do {
    const page = await client.call('read', client.app.getRobotPartLogs, GetRobotPartLogsRequest.fromPartial({ robotPartId: partId, numLogEntries: 0, limit: 1000, pageToken }));
    out.push(...page.logs.map((l) => ({ id: l.id, timeMs: l.time!.getTime() })));
    pageToken = page.nextPageToken;
  } while (pageToken !== '');
  return out;
}
