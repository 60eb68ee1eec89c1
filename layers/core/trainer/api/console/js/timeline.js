import { api } from "./api.js";
import { costChart, turnsOf } from "./chart.js";
import { h, replace } from "./dom.js";
import { cents, dateTime, milliseconds, percent, time, tokens } from "./format.js";
import { allEvents, eventsPage } from "./stream.js";

const PAGE_SIZE = 50;
const EVENT_TYPES = ["user_message", "llm_request", "llm_response", "tool_call", "tool_result", "knowledge", "artifact", "error", "checkpoint"];
const COLUMNS = ["#", "Time", "Type", "Tool / model", "Duration", "Input", "Cache write", "Cache read", "Output", "Cost", "Cached share", "JSON"];

function subject(event) {
  const data = event.data ?? {};
  switch (event.event_type) {
    case "tool_call":
    case "tool_result":
      return data.tool_name ?? "";
    case "llm_request":
    case "llm_response":
      return data.model ?? "";
    case "knowledge":
      return [data.source ?? "", budgetText(data.budget)].filter(Boolean).join(" · ");
    case "artifact":
      return data.type ?? "";
    case "error":
      return data.context ?? "";
    default:
      return "";
  }
}

// How a data source fitted the turn's prompt budget (estimated tokens): "812 of 2,000 tokens", or
// "1,996 of 2,000 tokens (12 entries left out of 9,500 tokens)".
export function budgetText(budget) {
  if (!budget) return "";
  const fitted = `${tokens(budget.tokens)} of ${tokens(budget.limit)} tokens`;
  if (!budget.left_out) return fitted;
  return `${fitted} (${tokens(budget.left_out)} entries left out of ${tokens(budget.full_tokens)} tokens)`;
}

function usage(event) {
  if (event.event_type !== "llm_response") return null;
  const t = event.data?.tokens ?? {};
  const sent = (t.prompt ?? 0) + (t.cache_write ?? 0) + (t.cached ?? 0);
  return {
    input: t.prompt ?? 0,
    written: t.cache_write ?? 0,
    cached: t.cached ?? 0,
    output: t.completion ?? 0,
    cost: event.data?.cost_cents ?? 0,
    share: sent ? (t.cached ?? 0) / sent : null,
  };
}

function sessionItem(session, current) {
  const label = [dateTime(session.created_at), session.status, cents(session.total_cost_cents), `${tokens(session.total_tokens)} tokens`].join(" · ");
  return h(
    "li",
    {},
    h("a", { href: `#/timeline/${session.id}`, "aria-current": session.id === current ? "page" : undefined },
      h("code", {}, session.id.slice(0, 8)), " ", h("span", { class: "session-meta" }, label)),
  );
}

export async function showTimeline(main, sessionId) {
  const sessions = h("ol", { class: "sessions" });
  const detail = h("div", { class: "session-detail" });
  replace(
    main,
    h(
      "section",
      { class: "view timeline", "aria-labelledby": "timeline-title" },
      h("div", { class: "view-head" }, h("h2", { id: "timeline-title" }, "Timeline")),
      h(
        "div",
        { class: "timeline-layout" },
        h("nav", { class: "session-list", "aria-labelledby": "sessions-title" }, h("h3", { id: "sessions-title" }, "Sessions, newest first"), sessions),
        detail,
      ),
    ),
  );
  const listing = api("/agent/sessions", { query: { limit: 50 } });
  if (sessionId) await new SessionTimeline(detail, sessionId).load();
  else replace(detail, h("p", { class: "empty" }, "Pick a session to see its events."));
  const { sessions: rows } = await listing;
  replace(sessions, rows.length ? rows.map((session) => sessionItem(session, sessionId)) : h("li", { class: "empty" }, "No sessions yet."));
}

class SessionTimeline {
  constructor(element, sessionId) {
    this.element = element;
    this.sessionId = sessionId;
    this.after = 0;
    this.loaded = 0;
    this.rows = h("tbody");
    this.filter = h(
      "select",
      { id: "event-type", onchange: () => this.applyFilter() },
      h("option", { value: "" }, "All types"),
      EVENT_TYPES.map((type) => h("option", { value: type }, type)),
    );
    this.more = h("button", { type: "button", class: "secondary", onclick: () => this.loadPage() }, "Load more events");
    this.count = h("p", { class: "event-count", role: "status" });
    this.dialog = h("dialog", { class: "json-dialog", "aria-labelledby": "json-title" });
  }

  async load() {
    const { session } = await api(`/agent/sessions/${encodeURIComponent(this.sessionId)}`);
    this.session = session;
    this.chart = h("div", { class: "chart-slot" }, h("p", { class: "empty" }, "Loading the cost chart…"));
    replace(
      this.element,
      h("h3", {}, "Session ", h("code", {}, session.id)),
      h(
        "dl",
        { class: "totals" },
        [
          ["Status", session.status],
          ["Started", dateTime(session.created_at)],
          ["Events", String(session.last_seq)],
          ["Tokens", tokens(session.total_tokens)],
          ["Cost", cents(session.total_cost_cents)],
          ["Cache hit", percent((session.cache_hit_rate ?? 0) / 100)],
        ].map(([term, value]) => h("div", {}, h("dt", {}, term), h("dd", {}, value))),
      ),
      h("p", {}, h("a", { href: `#/chat/${session.id}` }, "Open in chat")),
      h("h4", {}, "Cost and cache hit per turn"),
      this.chart,
      h("h4", { id: "events-title" }, "Events"),
      h("div", { class: "filters" }, h("label", { for: "event-type" }, "Event type"), this.filter),
      h(
        "div",
        { class: "table-wrap", tabindex: "0", role: "region", "aria-labelledby": "events-title" },
        h("table", { class: "events" }, h("thead", {}, h("tr", {}, COLUMNS.map((name) => h("th", { scope: "col" }, name)))), this.rows),
      ),
      this.count,
      this.more,
      this.dialog,
    );
    await this.loadPage();
    allEvents(this.sessionId)
      .then((events) => replace(this.chart, costChart(turnsOf(events))))
      .catch((error) => replace(this.chart, h("p", { class: "notice", role: "alert" }, `The chart could not load: ${error.message}`)));
  }

  async loadPage() {
    this.more.disabled = true;
    const page = await eventsPage(this.sessionId, this.after, PAGE_SIZE);
    for (const event of page.events) this.rows.append(this.row(event));
    this.loaded += page.events.length;
    this.after = page.nextAfter;
    this.more.hidden = this.after === null;
    this.more.disabled = false;
    this.applyFilter();
  }

  applyFilter() {
    const type = this.filter.value;
    let shown = 0;
    for (const row of this.rows.rows) {
      row.hidden = Boolean(type) && row.dataset.type !== type;
      if (!row.hidden) shown += 1;
    }
    const of = this.after === null ? `all ${this.loaded}` : `${this.loaded} of ${this.session.last_seq}`;
    replace(this.count, `${shown} shown · ${of} events loaded`);
  }

  row(event) {
    const use = usage(event);
    const cell = (value, className) => h("td", { class: className }, value ?? "");
    return h(
      "tr",
      { dataset: { type: event.event_type, seq: String(event.sequence_number) } },
      cell(String(event.sequence_number), "num"),
      cell(time(event.timestamp), "time"),
      cell(event.event_type, "type"),
      cell(subject(event), "subject"),
      cell(milliseconds(event.duration_ms), "num"),
      cell(use && tokens(use.input), "num input"),
      cell(use && tokens(use.written), "num written"),
      cell(use && tokens(use.cached), "num cached"),
      cell(use && tokens(use.output), "num output"),
      cell(use && cents(use.cost), "num cost"),
      cell(use && percent(use.share), "num share"),
      h("td", {}, h("button", { type: "button", class: "link", "aria-label": `JSON of event ${event.sequence_number}`, onclick: (click) => this.open(event, click.currentTarget) }, "JSON")),
    );
  }

  open(event, opener) {
    const close = h("button", { type: "button", class: "secondary", onclick: () => this.dialog.close() }, "Close");
    replace(
      this.dialog,
      h("h3", { id: "json-title" }, `Event ${event.sequence_number}: ${event.event_type}`),
      h("pre", { class: "json", tabindex: "0" }, JSON.stringify(event, null, 2)),
      close,
    );
    this.dialog.addEventListener("close", () => opener.focus(), { once: true });
    this.dialog.showModal();
    close.focus();
  }
}
