// A phone's health-data sync through the generated TypeScript client (openapi-fetch over the
// openapi-typescript types), against a running stack:
//   node out/health.js <baseUrl> <token> <batches.json>
// `batches.json` holds the request bodies a phone builds from HealthKit or Health Connect (a list of
// `HealthSampleBatch`). The flow: consent to every type, the first sync one batch after the other, the
// last batch sent again, today's workout, consent to HRV withdrawn, today's workout again, what is
// stored. Prints one JSON summary line that tests/e2e/test_health_flow.py checks.
import { readFileSync } from "node:fs";
import createClient from "openapi-fetch";
import type { components, paths } from "./api.js";

type Batch = components["schemas"]["HealthSampleBatch"];
type Stored = components["schemas"]["HealthSamplesStored"];

const [baseUrl, token, batchesPath] = process.argv.slice(2);
if (!baseUrl || !token || !batchesPath) throw new Error("usage: node health.js <baseUrl> <token> <batches.json>");
const api = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${token}` } });
const batches = JSON.parse(readFileSync(batchesPath, "utf-8")) as Batch[];

function ok<T>(result: { data?: T; error?: unknown; response: Response }, what: string): T {
  if (result.data === undefined) throw new Error(`${what}: ${result.response.status} ${JSON.stringify(result.error)}`);
  return result.data;
}

const every = { heart_rate_variability: true, resting_heart_rate: true, sleep: true, steps: true, workouts: true };
const granted = ok(await api.PUT("/health/consent", { body: every }), "updateHealthConsent");

const started = performance.now();
const answers: Stored[] = [];
for (const body of batches) answers.push(ok(await api.POST("/health/samples", { body }), "sendHealthSamples"));
const syncSeconds = (performance.now() - started) / 1000;
const last = batches[batches.length - 1];
if (!last) throw new Error("no batch to send");
const replayed = ok(await api.POST("/health/samples", { body: last }), "sendHealthSamples");

const { today } = ok(await api.GET("/today"), "getToday");
const withdrawn = ok(await api.PUT("/health/consent", { body: { heart_rate_variability: false } }), "updateHealthConsent");
const after = ok(await api.GET("/today"), "getToday").today;
const refused = await api.POST("/health/samples", { body: last });
const status = ok(await api.GET("/health/status"), "getHealthStatus");

console.log(
  JSON.stringify({
    granted: granted.consents.filter((c) => c.granted).map((c) => c.data_type),
    requests: answers.length,
    received: answers.reduce((n, a) => n + a.received, 0),
    stored: answers.reduce((n, a) => n + a.stored, 0),
    syncSeconds,
    replayed: { received: replayed.received, stored: replayed.stored, duplicates: replayed.duplicates },
    adjustment: today.adjustment ?? null,
    withdrawnDeleted: withdrawn.deleted_samples,
    adjustmentAfterWithdrawal: after.adjustment ?? null,
    refused: { status: refused.response.status, code: refused.error?.error.code ?? null },
    storedByType: Object.fromEntries(status.stored.map((s) => [s.type, s.samples])),
  }),
);
