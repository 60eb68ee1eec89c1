import { EventSourceParserStream } from "../vendor/eventsource-parser/stream.js";
import { api, errorOf, headers, url } from "./api.js";

const PAGE_LIMIT = 500;
const POLL_MS = 400;
const CATCH_UP_TIMEOUT_MS = 180_000;
// A turn is over at its `turn_end` (frame and event); sessions stored before the `turn_end` event
// existed are recognised by the calls and errors that end a turn.
const TURN_ENDING_TOOLS = new Set(["idle", "message_ask_user"]);
const TURN_ENDING_ERRORS = new Set(["agent_loop", "llm"]);

export function endsTurn(event) {
  const data = event.data ?? {};
  if (event.event_type === "turn_end") return true;
  if (event.event_type === "tool_result") return Boolean(data.success) && TURN_ENDING_TOOLS.has(data.tool_name);
  return event.event_type === "error" && TURN_ENDING_ERRORS.has(data.context);
}

export async function openStream(body, signal) {
  const response = await fetch(url("/agent/stream"), {
    method: "POST",
    headers: headers({ "Content-Type": "application/json", Accept: "text/event-stream" }),
    body: JSON.stringify(body),
    signal,
  });
  if (!response.ok) throw await errorOf(response);
  return response;
}

// A turn is over at its `turn_end` frame (`done`, right after it, closes the stream).
export async function readFrames(response, onFrame) {
  const reader = response.body
    .pipeThrough(new TextDecoderStream())
    .pipeThrough(new EventSourceParserStream())
    .getReader();
  let lastId = 0;
  let ended = false;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return { lastId, finished: ended };
      lastId = Math.max(lastId, Number(value.id) || 0);
      const frame = JSON.parse(value.data);
      onFrame(frame, lastId);
      if (frame.type === "turn_end") ended = true;
      if (frame.type === "done") return { lastId, finished: true };
    }
  } catch (error) {
    return { lastId, finished: ended, error };
  } finally {
    reader.releaseLock();
  }
}

export async function eventsPage(sessionId, after, limit = PAGE_LIMIT) {
  return api(`/agent/sessions/${encodeURIComponent(sessionId)}/events`, { query: { after, limit } });
}

export async function allEvents(sessionId, onPage) {
  const events = [];
  let after = 0;
  while (after !== null) {
    const page = await eventsPage(sessionId, after);
    events.push(...page.events);
    onPage?.(events);
    after = page.nextAfter;
  }
  return events;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Catch-up in frames: the frames the stream sent after `lastId`, with their ids, through the turn's
// `turn_end` (GET /agent/sessions/{id}/frames): the renderer of the stream renders them, nothing is
// shown twice or missed.
export async function catchUp(sessionId, lastId, onFrame) {
  const deadline = performance.now() + CATCH_UP_TIMEOUT_MS;
  let after = lastId;
  let count = 0;
  while (performance.now() < deadline) {
    const page = await api(`/agent/sessions/${encodeURIComponent(sessionId)}/frames`, { query: { after } });
    for (const sent of page.frames) {
      after = sent.id;
      count += 1;
      onFrame(sent.frame);
    }
    if (page.turnEnded) return { after, count, ended: true };
    await sleep(POLL_MS);
  }
  return { after, count, ended: false };
}
