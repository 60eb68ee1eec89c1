// Narrowing the generated types the way an app would (compiled with `tsc --strict` by
// tests/clients/test_generated_clients.py): a switch over `frame.type`, then over `frame.tool`,
// reading each variant's own fields. If the contract stopped discriminating, this would not compile.
import type { components } from "./api.js";

export type Frame = components["schemas"]["Frame"];
export type Event = components["schemas"]["Event"];
export type Action = components["schemas"]["Action"];
export type Artifact = components["schemas"]["Artifact"];

function assertNever(value: never): never {
  throw new Error(`unexpected ${JSON.stringify(value)}`);
}

export function artifactLine(artifact: Artifact): string {
  switch (artifact.type) {
    case "exercise_list":
      return `${artifact.title ?? "workout"}: ${artifact.payload.exercises.map((e) => e.exercise_name).join(", ")}`;
    case "timer":
      return `${artifact.payload.timers.length} timers, ${artifact.payload.total_duration_sec} s`;
    default:
      return assertNever(artifact);
  }
}

export function describeFrame(frame: Frame): string {
  switch (frame.type) {
    case "session":
      return `session ${frame.sessionId}`;
    case "status":
      return `${frame.data.tool} ${frame.data.phase}: ${frame.data.message}`;
    case "knowledge":
      return `loaded ${frame.data.displayName}`;
    case "message_delta":
      return frame.data.text;
    case "message_reset":
      return "drop the preview";
    case "tool_start":
      switch (frame.tool) {
        case "generate_workout":
          return `generating ${frame.args?.workout.exercises.length ?? "?"} exercises`;
        case "message_notify_user":
          return `saying ${frame.args?.message ?? ""}`;
        case "message_ask_user":
          return `asking ${frame.args?.question ?? ""} (${(frame.args?.options ?? []).join(" / ")})`;
        default:
          return `running ${frame.tool}`;
      }
    case "tool_result": {
      if (!frame.data.success) return `${frame.tool} failed: ${frame.data.error}`;
      switch (frame.tool) {
        case "generate_workout":
          return `${frame.data.title}: ${frame.data.exercises.map((e) => e.exercise_name).join(", ")}`;
        case "message_notify_user":
          return frame.artifact ? `${frame.data.message} [${artifactLine(frame.artifact)}]` : frame.data.message;
        case "message_ask_user":
          return `${frame.data.question} ${frame.data.options.join(" / ")}`;
        case "generate_workout_timers":
          return `${frame.data.timers.length} timers (${frame.data.total_duration_sec} s)`;
        default:
          return `${frame.tool} done`;
      }
    }
    case "error":
      return `error ${frame.code ?? ""}: ${frame.message}`;
    case "turn_end":
      return `turn ${frame.outcome}`;
    case "done":
      return `done ${frame.sessionId ?? ""}`;
    default:
      return assertNever(frame);
  }
}

export function describeAction(action: Action): string {
  if (!action.result.success) return `${action.tool} failed: ${action.result.error}`;
  switch (action.tool) {
    case "swap_exercise":
      return `${action.result.old_name} -> ${action.result.new_exercise.exercise_name}`;
    case "log_workout":
      return `logged ${action.args?.completed_exercises.length ?? 0} exercises`;
    default:
      return action.tool;
  }
}

export function describeEvent(event: Event): string {
  switch (event.event_type) {
    case "user_message":
      return event.data.message;
    case "llm_request":
      return `${event.data.model} #${event.data.iteration}`;
    case "llm_response":
      return `${event.data.tokens.total} tokens, ${event.data.cost_cents} cents`;
    case "tool_call":
      return `${event.data.tool_name}(${Object.keys(event.data.arguments).join(", ")})`;
    case "tool_result":
      return `${event.data.tool_name} ${event.data.success ? "ok" : "failed"}`;
    case "knowledge":
      return `${event.data.source}: ${event.data.data.length} characters`;
    case "error":
      return `${event.data.context}: ${event.data.message}`;
    case "artifact":
      return artifactLine(event.data);
    case "checkpoint":
      return `checkpoint of ${event.data.events_summarized}`;
    case "turn_end":
      return `turn ended: ${event.data.outcome}`;
    default:
      return assertNever(event);
  }
}
