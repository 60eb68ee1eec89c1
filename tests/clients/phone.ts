// A phone's flow through the generated TypeScript client (openapi-fetch over the openapi-typescript
// types) and @microsoft/fetch-event-source for the stream, against a running stack:
//   node out/phone.js <baseUrl> <token> [flow|stream]
// prints one JSON summary line that tests/e2e/test_phone_flow.py checks (`stream`: a session and one
// streamed turn only).
import { fetchEventSource } from "@microsoft/fetch-event-source";
import createClient from "openapi-fetch";
import type { components, paths } from "./api.js";
import { describeEvent, describeFrame, type Frame } from "./frames.js";

// fetch-event-source is written for browsers: it pauses hidden pages and calls window timers.
const browserish = globalThis as unknown as Record<string, unknown>;
browserish.window ??= globalThis;
browserish.document ??= { hidden: false, addEventListener() {}, removeEventListener() {} };

const [baseUrl, token, mode = "flow", cutAfter = "0"] = process.argv.slice(2);
if (!baseUrl || !token) throw new Error("usage: node phone.js <baseUrl> <token>");
const headers = { Authorization: `Bearer ${token}` };
const api = createClient<paths>({ baseUrl, headers });

function ok<T>(result: { data?: T; error?: unknown; response: Response }, what: string): T {
  if (result.data === undefined) throw new Error(`${what}: ${result.response.status} ${JSON.stringify(result.error)}`);
  return result.data;
}

class Fatal extends Error {}

async function streamTurn(message: string, sessionId: string) {
  const frames: Array<{ id: number; frame: Frame; line: string }> = [];
  let emptyMessages = 0;
  let lastId = 0;
  await fetchEventSource(`${baseUrl}/agent/stream`, {
    method: "POST",
    headers: { ...headers, "Content-Type": "application/json" },
    body: JSON.stringify({ message, sessionId }),
    openWhenHidden: true,
    async onopen(response) {
      const type = response.headers.get("content-type") ?? "";
      if (!response.ok || !type.startsWith("text/event-stream")) throw new Fatal(`stream: ${response.status} ${type}`);
    },
    onmessage(message) {
      if (message.data === "") {
        emptyMessages += 1;
        return;
      }
      const frame = JSON.parse(message.data) as Frame;
      // an event without an `id:` line (message_delta, done) keeps the last event id, as EventSource does
      if (message.id) lastId = Number(message.id);
      frames.push({ id: lastId, frame, line: describeFrame(frame) });
    },
    onerror(error) {
      throw error; // no retry here: a dropped stream's retry is tested on its own (docs/api.md#retries-idempotency-and-catch-up)
    },
  });
  return { frames, emptyMessages };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// `retry <n>`: the first response's body breaks off after the chunk that completes its n-th event, as a
// dropped connection does; fetch-event-source's own retry (it re-POSTs the same body with
// `Last-Event-ID`) must get the rest of the same turn: the phone shows every frame exactly once.
function cuttingFetch(events: number): typeof fetch {
  let calls = 0;
  return async (input, init) => {
    const response = await fetch(input, init);
    calls += 1;
    if (calls > 1 || !response.body) return response;
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let seen = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (seen >= events) {
          await reader.cancel();
          controller.error(new Error("connection dropped"));
          return;
        }
        const { value, done } = await reader.read();
        if (done) {
          controller.close();
          return;
        }
        seen += (decoder.decode(value, { stream: true }).match(/\n\n/g) ?? []).length;
        controller.enqueue(value);
      },
    });
    return new Response(body, { status: response.status, headers: response.headers });
  };
}

async function retriedTurn(message: string, events: number) {
  const frames: Array<{ id: number; type: string }> = [];
  let lastId = 0;
  let attempts = 0;
  await fetchEventSource(`${baseUrl}/agent/stream`, {
    method: "POST",
    headers: { ...headers, "Content-Type": "application/json" },
    body: JSON.stringify({ message }),
    openWhenHidden: true,
    fetch: cuttingFetch(events),
    async onopen(response) {
      attempts += 1;
      if (!response.ok) throw new Fatal(`stream: ${response.status}`);
    },
    onmessage(message) {
      if (message.id) lastId = Number(message.id);
      const frame = JSON.parse(message.data) as Frame;
      frames.push({ id: lastId, type: frame.type });
      if (frame.type === "done") throw new Fatal("done");
    },
    onerror(error) {
      if (error instanceof Fatal) throw error;
      return 20; // retry after 20 ms, with Last-Event-ID (fetch-event-source's default behaviour)
    },
  }).catch((error) => {
    if (!(error instanceof Fatal && error.message === "done")) throw error;
  });
  return { frames, attempts };
}

async function main() {
  if (mode === "retry") {
    console.log(JSON.stringify(await retriedTurn("Give me a quick chest workout", Number(cutAfter))));
    return;
  }
  const { session } = ok(await api.POST("/agent/sessions"), "createSession");
  const listed = ok(await api.GET("/agent/sessions", { params: { query: { limit: 10 } } }), "listSessions");

  const turn = await streamTurn("Give me a quick chest workout", session.id);
  const last = turn.frames.at(-1)?.frame;
  const turnEnd = turn.frames.at(-2)?.frame;
  const streamed = {
    sessionId: session.id,
    listed: listed.sessions.map((s) => s.id),
    frameTypes: turn.frames.map((f) => f.frame.type),
    frameIds: turn.frames.map((f) => f.id),
    lines: turn.frames.map((f) => f.line),
    emptyMessages: turn.emptyMessages,
    turnEnd: turnEnd?.type === "turn_end" ? turnEnd.outcome : null,
    doneSession: last?.type === "done" ? last.sessionId : null,
  };
  if (mode === "stream") {
    console.log(JSON.stringify(streamed));
    return;
  }

  const { plan } = ok(await api.POST("/plans", { body: { weeks: 4, days_per_week: 3 } }), "createPlan");
  const deadline = Date.now() + 120_000;
  let detail = ok(await api.GET("/plans/{plan_id}", { params: { path: { plan_id: plan.id } } }), "getPlan");
  while (!(detail.plan.status === "ready" && detail.weeks.some((week) => week.status === "ready"))) {
    if (detail.plan.status === "failed" || Date.now() > deadline) throw new Error(`plan: ${JSON.stringify(detail.plan)}`);
    await sleep(500);
    detail = ok(await api.GET("/plans/{plan_id}", { params: { path: { plan_id: plan.id } } }), "getPlan");
  }
  const firstDay = detail.days[0]?.date;
  const week = ok(await api.GET("/workouts", { params: { query: { from: firstDay } } }), "listWorkouts");
  const training = week.workouts.filter((day) => day.kind === "training" && day.workout !== null);

  const imported = ok(
    await api.POST("/workouts/import", { body: { text: "Bench press 4x8 @ 60kg\nPlank 3 x 45s\n" } }),
    "importWorkout",
  );

  const events: string[] = [];
  let pages = 0;
  let after: number | null = 0;
  while (after !== null) {
    const page: components["schemas"]["EventsPage"] = ok(
      await api.GET("/agent/sessions/{session_id}/events", {
        params: { path: { session_id: session.id }, query: { after, limit: 5 } },
      }),
      "listSessionEvents",
    );
    pages += 1;
    events.push(...page.events.map(describeEvent));
    after = page.nextAfter;
  }

  console.log(
    JSON.stringify({
      ...streamed,
      plan: { status: detail.plan.status, weeks: detail.weeks.length, days: detail.days.length },
      week: { days: week.workouts.length, training: training.length, firstExercise: training[0]?.workout?.exercises[0]?.exercise_name ?? null },
      imported: imported.workout.exercises.map((e) => e.exercise_name),
      events: events.length,
      pages,
    }),
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
