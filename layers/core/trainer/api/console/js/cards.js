import { h, replace } from "./dom.js";
import { clock, dose, humanize, rest, seconds } from "./format.js";

const GROUP_LABELS = {
  superset: "Superset",
  circuit: "Circuit",
  giant_set: "Giant set",
  warmup: "Warm-up",
  cooldown: "Cool-down",
  sequence: "Sequence",
};

function groupsOf(exercises) {
  const blocks = [];
  for (const exercise of [...exercises].sort((a, b) => (a.order ?? 0) - (b.order ?? 0))) {
    const last = blocks.at(-1);
    if (exercise.group && last?.group?.id === exercise.group.id) last.exercises.push(exercise);
    else blocks.push({ group: exercise.group ?? null, exercises: [exercise] });
  }
  return blocks;
}

function exerciseItem(exercise) {
  const restText = rest(exercise);
  return h(
    "li",
    { class: "exercise" },
    h("span", { class: "exercise-name" }, exercise.exercise_name),
    h("span", { class: "dose" }, dose(exercise)),
    restText && h("span", { class: "rest" }, restText),
  );
}

function groupTitle(group, exercises) {
  const lead = exercises.find((exercise) => exercise.group?.name || exercise.group?.rounds) ?? exercises[0];
  const label = GROUP_LABELS[group.type] ?? humanize(group.type);
  const parts = [lead.group?.name && lead.group.name !== label ? `${label}: ${lead.group.name}` : label];
  if (lead.group?.rounds) parts.push(`${lead.group.rounds} rounds`);
  if (lead.group?.rest_between_rounds_sec) parts.push(`${seconds(lead.group.rest_between_rounds_sec)} between rounds`);
  return parts.join(" · ");
}

export function workoutCard(workout, { heading = "h3" } = {}) {
  const exercises = workout?.exercises ?? [];
  const summary = workout?.summary ?? {};
  const title = workout?.title || "Workout";
  const meta = [`${exercises.length} exercise${exercises.length === 1 ? "" : "s"}`];
  if (summary.estimated_duration_min) meta.push(`about ${Math.round(summary.estimated_duration_min)} min`);
  if (summary.muscles_targeted?.length) meta.push(summary.muscles_targeted.join(", "));
  const list = h("ol", { class: "exercises" });
  for (const block of groupsOf(exercises)) {
    if (!block.group) {
      list.append(exerciseItem(block.exercises[0]));
      continue;
    }
    list.append(
      h(
        "li",
        { class: `group group-${block.group.type}` },
        h("p", { class: "group-title" }, groupTitle(block.group, block.exercises)),
        h("ol", { class: "exercises" }, block.exercises.map(exerciseItem)),
      ),
    );
  }
  return h(
    "article",
    { class: "card workout-card", "aria-label": `Workout: ${title}` },
    h(heading, { class: "card-title" }, title),
    h("p", { class: "card-meta" }, meta.join(" · ")),
    list,
  );
}

function timerRunner(timer) {
  const display = h("p", { class: "timer-now", role: "timer", "aria-live": "off" }, "Ready");
  const button = h("button", { type: "button", class: "secondary", "aria-label": `Start the ${timer.exercise_name} timer` }, "Start");
  let ticking = null;
  const stop = () => {
    clearInterval(ticking);
    ticking = null;
    button.textContent = "Start";
    button.setAttribute("aria-label", `Start the ${timer.exercise_name} timer`);
  };
  button.addEventListener("click", () => {
    if (ticking) return stop();
    const phases = timer.phases ?? [];
    let index = 0;
    let left = phases[0]?.duration_sec ?? 0;
    const show = () => replace(display, `${phases[index]?.cue ?? "Done"} — ${clock(left)}`);
    button.textContent = "Stop";
    button.setAttribute("aria-label", `Stop the ${timer.exercise_name} timer`);
    show();
    ticking = setInterval(() => {
      left -= 1;
      while (left <= 0 && index < phases.length) {
        index += 1;
        left = phases[index]?.duration_sec ?? 0;
      }
      if (index >= phases.length) {
        stop();
        replace(display, "Done");
        return;
      }
      show();
    }, 1000);
  });
  return h("div", { class: "timer-controls" }, button, display);
}

export function timersCard(payload) {
  const timers = payload?.timers ?? [];
  return h(
    "article",
    { class: "card timers-card", "aria-label": "Timers" },
    h("h3", { class: "card-title" }, "Timers"),
    h("p", { class: "card-meta" }, `${timers.length} timer${timers.length === 1 ? "" : "s"} · ${seconds(payload?.total_duration_sec ?? 0)} in all`),
    h(
      "ul",
      { class: "timers" },
      timers.map((timer) =>
        h(
          "li",
          { class: "timer" },
          h(
            "details",
            {},
            h("summary", {}, `${timer.exercise_name} · ${clock(timer.total_duration_sec)}`),
            h(
              "ol",
              { class: "phases" },
              (timer.phases ?? []).map((phase) =>
                h("li", { class: `phase phase-${phase.phase_type}` }, `${phase.cue} — ${seconds(phase.duration_sec)}${phase.detail ? ` (${phase.detail})` : ""}`),
              ),
            ),
          ),
          timerRunner(timer),
        ),
      ),
    ),
  );
}

export function artifactCard(artifact) {
  if (!artifact) return null;
  if (artifact.type === "exercise_list") {
    return workoutCard({ title: artifact.title, summary: artifact.summary, ...artifact.payload });
  }
  if (artifact.type === "timer") return timersCard(artifact.payload ?? {});
  return null;
}
