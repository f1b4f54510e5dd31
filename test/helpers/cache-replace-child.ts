/**
 * A process that replaces an organization's cached fleet with a big snapshot and says when it has
 * begun, so a test can kill it in the middle of the transaction, as a crash or a power cut would.
 *
 *   node --import tsx test/helpers/cache-replace-child.ts CACHE_PATH MACHINES TAG
 */
import Database from 'better-sqlite3';
import { replaceFleet } from '../../main/fleet/tree';
import { fleetSnapshot } from './fleet-snapshot';

const [path, count, tag] = process.argv.slice(2);
const db = new Database(path!);
db.pragma('journal_mode = WAL');
const machines = Number(count);
const at = new Date().toISOString();
const snapshot = fleetSnapshot(machines, tag!, at);
// The first statement inside the transaction is a DELETE; tell the parent just before it starts.
process.stdout.write('begin\n');
replaceFleet(db, 'a', snapshot, at);
process.stdout.write('committed\n');
db.close();
