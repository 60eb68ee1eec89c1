import { api } from "./api.js";
import { announce, h, replace } from "./dom.js";
import { catchUp, allEvents, openStream, readFrames } from "./stream.js";
import { Turn, eventStep } from "./turn.js";

function sessionPath(sessionId) {
  return `/agent/sessions/${encodeURIComponent(sessionId)}`;
}

export function notFound(main, what = "Session") {
  replace(
    main,
    h(
      "section",
      { class: "view", "aria-labelledby": "not-found-title" },
      h("h2", { id: "not-found-title" }, `${what} not found`),
      h("p", { role: "alert", class: "notice" }, `${what} not found: it does not exist or belongs to another user.`),
      h("p", {}, h("a", { href: "#/chat" }, "Start a new chat")),
    ),
  );
}

export async function showChat(main, sessionId) {
  const view = new ChatView(sessionId);
  replace(main, view.element);
  if (sessionId) {
    view.setBusy(true);
    try {
      await view.load();
    } finally {
      view.setBusy(false);
    }
  }
  view.input.focus();
}

class ChatView {
  constructor(sessionId) {
    this.sessionId = sessionId ?? null;
    this.workout = null;
    this.busy = false;
    this.transcript = h("ol", { class: "transcript", "aria-label": "Conversation" });
    this.input = h("textarea", { id: "message", name: "message", rows: "2", required: true, autocomplete: "off", placeholder: "Ask the trainer, e.g. for a workout" });
    this.send = h("button", { type: "submit" }, "Send");
    this.notice = h("p", { class: "notice", role: "alert", hidden: true });
    this.label = h("p", { class: "session-label" });
    this.input.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        this.form.requestSubmit();
      }
    });
    this.form = h(
      "form",
      { class: "composer", onsubmit: (event) => this.submit(event) },
      h("label", { for: "message" }, "Message"),
      h("div", { class: "composer-row" }, this.input, this.send),
      h("p", { class: "hint", id: "message-hint" }, "Enter sends, Shift+Enter starts a new line."),
    );
    this.input.setAttribute("aria-describedby", "message-hint");
    this.element = h(
      "section",
      { class: "view chat", "aria-labelledby": "chat-title" },
      h(
        "div",
        { class: "view-head" },
        h("h2", { id: "chat-title" }, "Chat"),
        this.label,
        h("button", { type: "button", class: "secondary", onclick: () => this.newSession() }, "New session"),
      ),
      this.notice,
      this.transcript,
      this.form,
    );
    this.showLabel();
  }

  showLabel() {
    replace(
      this.label,
      this.sessionId
        ? ["Session ", h("code", {}, this.sessionId.slice(0, 8)), " · ", h("a", { href: `#/timeline/${this.sessionId}` }, "its timeline")]
        : "New conversation: the first message opens a session.",
    );
  }

  async load() {
    await api(sessionPath(this.sessionId));
    const events = await allEvents(this.sessionId);
    let turn = null;
    for (const event of events) {
      const step = eventStep(event);
      if (!step) continue;
      if (step.kind === "user") {
        turn = this.turn(step.text);
        this.transcript.append(turn.element);
      } else {
        turn?.apply(step);
      }
    }
    turn?.element.scrollIntoView({ block: "end" });
  }

  turn(text, { live = false } = {}) {
    return new Turn(text, {
      live,
      onOption: (option) => this.sendMessage(option),
      onWorkout: ({ payload, title }) => {
        this.workout = { workout_id: payload.workout_id, title: payload.title ?? title, exercises: payload.exercises ?? [] };
      },
    });
  }

  async newSession() {
    const { session } = await api("/agent/sessions", { method: "POST" });
    location.hash = `#/chat/${session.id}`;
  }

  submit(event) {
    event.preventDefault();
    const text = this.input.value.trim();
    if (text) this.sendMessage(text);
  }

  setBusy(busy) {
    this.busy = busy;
    this.send.disabled = busy;
    this.input.readOnly = busy;
  }

  showNotice(text) {
    this.notice.hidden = !text;
    replace(this.notice, text ?? "");
  }

  adopt(sessionId) {
    if (!sessionId || this.sessionId === sessionId) return;
    this.sessionId = sessionId;
    history.replaceState(null, "", `#/chat/${sessionId}`);
    this.showLabel();
  }

  async sendMessage(text) {
    if (this.busy) return;
    this.showNotice(null);
    this.setBusy(true);
    const turn = this.turn(text, { live: true });
    this.transcript.append(turn.element);
    turn.element.scrollIntoView({ block: "end" });
    this.input.value = "";
    let response;
    try {
      response = await openStream({
        message: text,
        ...(this.sessionId && { sessionId: this.sessionId }),
        ...(this.workout && { currentWorkout: this.workout }),
      });
    } catch (error) {
      turn.element.remove();
      this.input.value = text;
      this.showNotice(error.message || "The message could not be sent.");
      this.setBusy(false);
      return;
    }
    try {
      this.adopt(response.headers.get("X-Session-Id"));
      await this.follow(response, turn);
      announce("Reply received");
    } catch (error) {
      turn.finish(`Could not catch up: ${error.message}`);
    } finally {
      this.setBusy(false);
      turn.element.scrollIntoView({ block: "end" });
      this.input.focus();
    }
  }

  async follow(response, turn) {
    const { lastId, finished } = await readFrames(response, (frame) => {
      if (frame.type === "session") this.adopt(frame.sessionId);
      turn.frame(frame);
    });
    if (finished) {
      turn.finish();
      return;
    }
    replace(turn.meta, `Connection lost after frame ${lastId}; catching up…`);
    const result = await catchUp(this.sessionId, lastId, (frame) => turn.frame(frame));
    const frames = `${result.count} frame${result.count === 1 ? "" : "s"}`;
    turn.finish(
      result.ended
        ? `Reconnected: caught up on ${frames} after frame ${lastId}.`
        : `Still running after ${frames}; open the session again to see the rest.`,
    );
  }
}
