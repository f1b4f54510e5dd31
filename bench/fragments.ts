/**
 * Issue #18: on `--demo --demo-machines 10000`, "how many machines does this fragment reach" for a
 * fragment all 10,000 machines use (GetFragment's robot_part_count, through two levels of nesting)
 * answers in < 100 ms at the service, and ListMachineSummaries filtered by that fragment costs
 * ≤ 1.5× the same listing without the filter.
 *
 * The service runs in its own process (as in the app), on a data dir seeded with the demo fleet and
 * "Megafleet Logistics": every one of its 10,000 machines' main part uses its kind's fragment, which
 * nests "Megafleet base" — the fragment measured. Baselines, same run, same service:
 * - for the count, the 100 ms budget itself (the figure is the median call over it), and for context
 *   GetFragment of a fragment that reaches a handful of parts;
 * - for the filter, the whole listing of the organization's machines without `fragment_ids`
 *   (1,000 per page, every page), alternated with the filtered one, seven rounds each, medians. The
 *   verdict compares the service process's CPU time per listing (read from /proc around each
 *   listing): on a shared 2-core machine the wall time of a listing swings by 5× with what else
 *   runs, and the CPU the service spends is what the filter adds. Wall times are printed too.
 *
 *   npm run bench -- fragments
 */
import { performance } from 'node:perf_hooks';
import { credentials, Metadata } from '@grpc/grpc-js';
import { AppServiceClient } from '../proto/gen/fleet/app/v1/app';
import { AuthServiceClient } from '../proto/gen/fleet/auth/v1/auth';
import { FragmentVisibility, GetFragmentRequest, ListFragmentsRequest, type GetFragmentResponse, type ListFragmentsResponse } from '../proto/gen/fleet/app/v1/fragments';
import { ListMachineSummariesRequest, type ListMachineSummariesResponse } from '../proto/gen/fleet/app/v1/machines';
import type { ListOrganizationsResponse } from '../proto/gen/fleet/app/v1/orgs';
import { cpuSeconds, machine, ms, percentile, report, startServiceProcess } from './lib';

const MACHINES = 10_000;
const COUNT_CALLS = 50;
const WARMUP = 5;
const ROUNDS = 7;
const BUDGET_MS = 100;

function unary<Req, Res>(client: AppServiceClient, method: unknown, request: Req, md: Metadata): Promise<Res> {
  const fn = method as (req: Req, metadata: Metadata, options: { deadline: number }, cb: (e: Error | null, r: Res) => void) => unknown;
  return new Promise((resolve, reject) => fn.call(client, request, md, { deadline: Date.now() + 60_000 }, (e: Error | null, r: Res) => (e ? reject(e) : resolve(r))));
}

async function main(): Promise<boolean> {
  const service = await startServiceProcess(['--demo', '--demo-machines', String(MACHINES)]);
  const auth = new AuthServiceClient(service.address, credentials.createInsecure());
  const app = new AppServiceClient(service.address, credentials.createInsecure());
  try {
    const token = await new Promise<string>((resolve, reject) =>
      auth.authenticate({ entity: service.apiKeyId, credentials: { type: 'api-key', payload: service.apiKey } }, (e, r) => (e ? reject(e) : resolve(r.accessToken))),
    );
    const md = new Metadata();
    md.set('authorization', `Bearer ${token}`);
    const orgs = (await unary<object, ListOrganizationsResponse>(app, app.listOrganizations, {}, md)).organizations;
    const fleet = orgs.find((o) => o.name === 'Megafleet Logistics')!;
    const acme = orgs.find((o) => o.name === 'Acme Warehouse Robotics')!;
    const list = (orgId: string) =>
      unary<ListFragmentsRequest, ListFragmentsResponse>(app, app.listFragments, ListFragmentsRequest.fromPartial({ orgId, visibilities: [FragmentVisibility.FRAGMENT_VISIBILITY_PRIVATE, FragmentVisibility.FRAGMENT_VISIBILITY_PUBLIC] }), md);
    const base = (await list(fleet.id)).fragments.find((f) => f.name === 'Megafleet base')!;
    const small = (await list(acme.id)).fragments.find((f) => f.name === 'Kestrel picker cell')!;
    const get = (fragmentId: string) => unary<GetFragmentRequest, GetFragmentResponse>(app, app.getFragment, GetFragmentRequest.fromPartial({ fragmentId }), md);

    // The count, as a client asks for it before a change: GetFragment of the fragment.
    const timeGets = async (fragmentId: string) => {
      const times: number[] = [];
      let count = 0;
      for (let i = 0; i < WARMUP + COUNT_CALLS; i++) {
        const start = performance.now();
        count = (await get(fragmentId)).fragment!.robotPartCount;
        if (i >= WARMUP) times.push(performance.now() - start);
      }
      return { times, count };
    };
    const big = await timeGets(base.id);
    const few = await timeGets(small.id);
    if (big.count < MACHINES) throw new Error(`"Megafleet base" reaches ${big.count} parts, not at least ${MACHINES}`);

    // The listing, whole, with and without the filter, alternated.
    const serviceCpu = () => cpuSeconds([service.child.pid!])[0]! * 1000;
    const listAll = async (fragmentIds: string[]) => {
      const cpu = serviceCpu();
      const start = performance.now();
      let machines = 0;
      let pageToken = '';
      do {
        const page = await unary<ListMachineSummariesRequest, ListMachineSummariesResponse>(
          app,
          app.listMachineSummaries,
          ListMachineSummariesRequest.fromPartial({ organizationId: fleet.id, fragmentIds, pageSize: 1000, pageToken }),
          md,
        );
        machines += page.machineSummaries.length;
        pageToken = page.nextPageToken;
      } while (pageToken !== '');
      return { ms: performance.now() - start, cpu: serviceCpu() - cpu, machines };
    };
    await listAll([]);
    await listAll([base.id]);
    const plain: number[] = [];
    const filtered: number[] = [];
    const plainCpu: number[] = [];
    const filteredCpu: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const a = await listAll([]);
      const b = await listAll([base.id]);
      if (a.machines !== MACHINES || b.machines !== MACHINES) throw new Error(`listed ${a.machines} machines without the filter and ${b.machines} with it, not ${MACHINES} each`);
      plain.push(a.ms);
      filtered.push(b.ms);
      plainCpu.push(a.cpu);
      filteredCpu.push(b.cpu);
    }

    const p50 = percentile(big.times, 50);
    console.log(`fragments on ${machine()}`);
    console.log(`  "Megafleet base" reaches ${big.count} parts (${MACHINES} machines, through their kind's fragment)`);
    console.log(`  GetFragment robot_part_count, ${COUNT_CALLS} calls: p50 ${ms(p50)}, p95 ${ms(percentile(big.times, 95))}, max ${ms(Math.max(...big.times))}`);
    console.log(`  same for "Kestrel picker cell" (${few.count} parts): p50 ${ms(percentile(few.times, 50))}, p95 ${ms(percentile(few.times, 95))}`);
    console.log(`  ListMachineSummaries of ${MACHINES} machines, 1,000 a page, without fragment_ids: wall median ${ms(percentile(plain, 50))} (${plain.map(ms).join(', ')})`);
    console.log(`    service CPU median ${ms(percentile(plainCpu, 50))} (${plainCpu.map(ms).join(', ')})`);
    console.log(`  with fragment_ids = ["Megafleet base"]: wall median ${ms(percentile(filtered, 50))} (${filtered.map(ms).join(', ')})`);
    console.log(`    service CPU median ${ms(percentile(filteredCpu, 50))} (${filteredCpu.map(ms).join(', ')})`);
    const a = report({ name: 'robot_part_count of a fragment 10,000 machines use (GetFragment p50, vs the 100 ms budget)', ratio: p50 / BUDGET_MS, limit: 1, detail: `${ms(p50)}; ${(p50 / percentile(few.times, 50)).toFixed(2)}× a fragment of ${few.count} parts` });
    const b = report({
      name: 'ListMachineSummaries with fragment_ids (all 10,000 machines; service CPU)',
      ratio: percentile(filteredCpu, 50) / percentile(plainCpu, 50),
      limit: 1.5,
      detail: `${ms(percentile(filteredCpu, 50))} vs ${ms(percentile(plainCpu, 50))} without the filter; wall ${ms(percentile(filtered, 50))} vs ${ms(percentile(plain, 50))}`,
    });
    return a && b;
  } finally {
    auth.close();
    app.close();
    await service.stop();
  }
}

process.exitCode = (await main()) ? 0 : 1;
