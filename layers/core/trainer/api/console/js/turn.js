import { artifactCard } from "./cards.js";
import { afterPaint, h, replace } from "./dom.js";
import { humanize, milliseconds } from "./format.js";

const MESSAGE_TOOLS = new Set(["message_notify_user", "message_ask_user"]);
const SHOWN_ERROR_CONTEXTS = new Set(["agent_loop", "llm"]);

function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    const keys = Object.keys(value).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`).join(",")}}`;
  }
  return JSON.stringify(value ?? null);
}

export function frameStep(frame) {
  switch (frame.type) {
    case "knowledge":
      return { kind: "knowledge", source: frame.data.source, label: frame.data.displayName };
    case "error":
      return { kind: "error", message: frame.message };
    case "tool_start":
      return { kind: "call", tool: frame.tool, args: frame.args ?? {} };
    case "tool_result":
      return {
        kind: "result",
        tool: frame.tool,
        data: frame.data,
        artifact: frame.artifact ?? frame.data?.artifact ?? null,
        ok: frame.status === "done",
      };
    default:
      return null;
  }
}

export function eventStep(event) {
  const data = event.data ?? {};
  switch (event.event_type) {
    case "user_message":
      return { kind: "user", text: data.message ?? "" };
    case "knowledge":
      return { kind: "knowledge", source: data.source, label: humanize(data.source) };
    case "tool_call":
      return { kind: "call", tool: data.tool_name, args: data.arguments ?? {} };
    case "tool_result":
      return {
        kind: "result",
        tool: data.tool_name,
        data: data.result ?? {},
        artifact: data.result?.artifact ?? null,
        ok: Boolean(data.success),
      };
    case "error":
      // degraded mode: the live model was unavailable and the offline coach answered the turn
      if (data.context === "degraded") return { kind: "notice", message: data.message };
      return SHOWN_ERROR_CONTEXTS.has(data.context) ? { kind: "error", message: data.message } : null;
    default:
      return null;
  }
}

function stepKey(step) {
  switch (step.kind) {
    case "user":
      return `user:${step.text}`;
    case "knowledge":
      return `knowledge:${step.source}`;
    case "call":
      return `call:${step.tool}:${canonical(step.args)}`;
    case "result":
      return `result:${step.tool}:${canonical(step.data)}`;
    default:
      return step.kind;
  }
}

export class Turn {
  constructor(text, { onOption = () => {}, onWorkout = () => {}, live = false } = {}) {
    this.onOption = onOption;
    this.onWorkout = onWorkout;
    this.seen = new Map();
    this.statusMessages = new Map();
    this.openChips = new Map();
    this.draft = null;
    this.marks = {};
    this.chips = h("ul", { class: "chips", "aria-label": "Progress" });
    this.body = h("div", { class: "reply" });
    this.meta = h("p", { class: "turn-meta", role: "status" });
    this.element = h(
      "li",
      { class: "turn", "aria-busy": live ? "true" : "false" },
      h("p", { class: "bubble user-text" }, h("span", { class: "visually-hidden" }, "You: "), text),
      h("div", { class: "assistant" }, this.chips, this.body, this.meta),
    );
    this.remember({ kind: "user", text });
    if (live) this.sentAt = performance.now();
  }

  remember(step) {
    const key = stepKey(step);
    this.seen.set(key, (this.seen.get(key) ?? 0) + 1);
  }

  frame(frame) {
    this.measure(frame);
    switch (frame.type) {
      case "session":
        replace(this.meta, "Working…");
        return;
      case "status":
        if (frame.data.tool === "degraded") {
          const notice = { kind: "notice", message: frame.data.message };
          this.remember(notice);
          this.apply(notice);
          return;
        }
        this.status(frame.data);
        return;
      case "message_delta":
        this.delta(frame.data.text);
        return;
      case "message_reset":
        this.dropDraft();
        return;
      case "turn_end":
        this.outcome = frame.outcome;
        this.element.dataset.outcome = frame.outcome;
        return;
      case "done":
        return;
      default: {
        const step = frameStep(frame);
        if (!step) return;
        this.remember(step);
        this.apply(step);
      }
    }
  }

  caughtUp(event) {
    const step = eventStep(event);
    if (!step) return false;
    const key = stepKey(step);
    const pending = this.seen.get(key) ?? 0;
    if (pending > 0) {
      this.seen.set(key, pending - 1);
      return false;
    }
    this.apply(step);
    return true;
  }

  apply(step) {
    switch (step.kind) {
      case "knowledge":
        this.chip({ kind: "knowledge", label: step.label, state: "done", source: step.source });
        return;
      case "call":
        if (MESSAGE_TOOLS.has(step.tool)) this.message(step);
        else this.openChips.set(step.tool, this.chip({ kind: "tool", tool: step.tool, label: this.statusMessages.get(step.tool) ?? humanize(step.tool), state: "running" }));
        return;
      case "result":
        this.result(step);
        return;
      case "error":
        this.body.append(h("p", { class: "turn-error", role: "alert" }, step.message));
        return;
      case "notice":
        this.element.dataset.degraded = "true";
        this.body.append(h("p", { class: "turn-notice", role: "status" }, step.message));
        return;
      default:
    }
  }

  chip({ kind, label, state, tool, source }) {
    const chip = h("li", { class: `chip chip-${kind}`, dataset: { kind, state, ...(tool && { tool }), ...(source && { source }) } }, label);
    this.chips.append(chip);
    return chip;
  }

  status({ tool, message, phase }) {
    if (phase === "start") {
      this.statusMessages.set(tool, message);
      return;
    }
    const chip = this.openChips.get(tool);
    if (!chip) return;
    chip.textContent = message;
    chip.dataset.state = phase === "done" ? "done" : "failed";
  }

  delta(text) {
    if (!this.draft) {
      this.draft = h("p", { class: "bubble assistant-text", dataset: { state: "writing" } });
      this.body.append(this.draft);
    }
    this.draft.append(text);
  }

  // The answer being previewed was cut off (its model call is made again) or withdrawn: the text shown
  // so far goes, and the deltas that follow start a new bubble.
  dropDraft() {
    this.draft?.remove();
    this.draft = null;
  }

  message(step) {
    const text = step.args.message ?? step.args.question ?? "";
    const bubble = this.draft ?? this.body.appendChild(h("p", { class: "bubble assistant-text" }));
    this.draft = null;
    bubble.textContent = text;
    bubble.dataset.state = "final";
    bubble.dataset.tool = step.tool;
    const options = step.tool === "message_ask_user" ? step.args.options ?? [] : [];
    if (options.length) {
      this.body.append(
        h(
          "div",
          { class: "options", role: "group", "aria-label": "Answer" },
          options.map((option) => h("button", { type: "button", class: "option", onclick: () => this.onOption(option) }, option)),
        ),
      );
    }
  }

  result(step) {
    if (MESSAGE_TOOLS.has(step.tool)) {
      const card = artifactCard(step.artifact);
      if (card) this.body.append(card);
      if (step.artifact?.type === "exercise_list") this.onWorkout(step.artifact);
      return;
    }
    const chip = this.openChips.get(step.tool);
    if (chip) chip.dataset.state = step.ok ? "done" : "failed";
  }

  measure(frame) {
    if (this.sentAt === undefined) return;
    const now = performance.now();
    const first = (name) => {
      if (this.marks[name] !== undefined) return;
      this.marks[name] = null;
      afterPaint(() => {
        const painted = performance.now();
        this.marks[name] = painted - this.sentAt;
        performance.measure(`console:${name}`, { start: this.sentAt, end: painted });
        this.showTimings();
      });
    };
    first("first-frame");
    if (!["session", "turn_end", "done"].includes(frame.type)) first("first-content");
    if (frame.type === "message_delta") first("first-text");
    if (frame.type === "done") {
      this.marks.done = now - this.sentAt;
      this.showTimings();
    }
  }

  showTimings() {
    const labels = { "first-frame": "first frame", "first-text": "first words", done: "done" };
    const parts = Object.entries(labels)
      .filter(([name]) => typeof this.marks[name] === "number")
      .map(([name, label]) => `${label} ${milliseconds(Math.round(this.marks[name]))}`);
    if (this.marks.done !== undefined) replace(this.meta, parts.join(" · "));
  }

  finish(note) {
    this.element.setAttribute("aria-busy", "false");
    if (this.draft) this.draft.dataset.state = "final";
    if (note) replace(this.meta, note);
    else if (this.marks.done === undefined) replace(this.meta, "");
  }
}
