import { api } from "./api.js";
import { workoutCard } from "./cards.js";
import { h, replace } from "./dom.js";
import { humanize } from "./format.js";

const POLL_MS = 1000;
const POLL_LIMIT_MS = 120_000;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function day(iso, options = { weekday: "short", day: "numeric", month: "short" }) {
  return new Date(`${iso}T00:00:00Z`).toLocaleDateString("en-GB", { timeZone: "UTC", ...options });
}

export async function showPlans(main, planId) {
  const body = h("div", { class: "plans-body" }, h("p", { class: "empty" }, "Loading plans…"));
  replace(
    main,
    h("section", { class: "view plans", "aria-labelledby": "plans-title" }, h("div", { class: "view-head" }, h("h2", { id: "plans-title" }, "Plans")), body),
  );
  const { plans } = await api("/plans");
  const chosen = planId ? { id: planId } : plans.find((plan) => plan.active) ?? plans[0];
  if (!chosen) {
    replace(body, requestForm(body));
    return;
  }
  await showPlan(body, chosen.id, plans);
}

function requestForm(body) {
  const weeks = h("input", { id: "plan-weeks", name: "weeks", type: "number", min: "4", max: "16", value: "4", required: true });
  const status = h("p", { role: "status", class: "hint" });
  return h(
    "form",
    {
      class: "plan-request",
      onsubmit: async (event) => {
        event.preventDefault();
        replace(status, "Asking for a plan…");
        const { plan } = await api("/plans", { method: "POST", body: { weeks: Number(weeks.value) } });
        await showPlan(body, plan.id, [plan]);
      },
    },
    h("p", {}, "No training plan yet."),
    h("label", { for: "plan-weeks" }, "Weeks"),
    weeks,
    h("button", { type: "submit" }, "Build a plan"),
    status,
  );
}

async function ready(planId, onPending) {
  const deadline = performance.now() + POLL_LIMIT_MS;
  for (;;) {
    const detail = await api(`/plans/${encodeURIComponent(planId)}`);
    const building = detail.plan.status === "pending" || detail.weeks.some((week) => week.status === "building");
    if (!building || performance.now() > deadline) return detail;
    onPending(detail);
    await sleep(POLL_MS);
  }
}

async function showPlan(body, planId, plans) {
  const detail = await ready(planId, () => replace(body, h("p", { role: "status" }, "Building the plan…")));
  const upcoming = await api("/workouts");
  replace(body, planHeader(detail, plans), nextDays(upcoming), calendar(detail));
}

function planHeader({ plan, structured, markdown }, plans) {
  const facts = [
    ["Status", plan.status + (plan.active ? " (active)" : "")],
    ["Length", `${plan.weeks} weeks from ${day(plan.start_date, { day: "numeric", month: "short", year: "numeric" })}`],
    ["Training days", plan.training_days.join(", ")],
    ["Sessions", `${plan.days_per_week} a week, ${plan.session_minutes} min`],
  ];
  if (structured) facts.push(["Method", humanize(structured.methodology)]);
  return h(
    "header",
    { class: "plan-header" },
    h("h3", {}, plan.title ?? "Plan"),
    plan.error && h("p", { class: "notice", role: "alert" }, plan.error),
    h("dl", { class: "totals" }, facts.map(([term, value]) => h("div", {}, h("dt", {}, term), h("dd", {}, value)))),
    structured?.microcycles?.length &&
      h(
        "ol",
        { class: "phases-list", "aria-label": "Phases" },
        structured.microcycles.map((phase) =>
          h("li", {}, h("strong", {}, phase.name), ` · weeks ${phase.start_week}–${phase.end_week}`, phase.deload_weeks?.length ? ` · deload week ${phase.deload_weeks.join(", ")}` : "", h("br"), phase.goal),
        ),
      ),
    markdown && h("details", { class: "plan-document" }, h("summary", {}, "The plan as a document"), h("pre", { tabindex: "0" }, markdown)),
    plans.length > 1 &&
      h("p", { class: "hint" }, "Other plans: ", plans.filter((other) => other.id !== plan.id).map((other, index) => [index ? ", " : "", h("a", { href: `#/plans/${other.id}` }, other.title ?? other.status)])),
  );
}

function nextDays({ workouts }) {
  return h(
    "section",
    { class: "next-days", "aria-labelledby": "next-days-title" },
    h("h3", { id: "next-days-title" }, "Next 7 days"),
    workouts.length
      ? h("ol", { class: "next-list" }, workouts.map((item) => h("li", { dataset: { kind: item.kind } }, h("strong", {}, day(item.date)), " ", item.kind === "rest" ? "Rest" : item.focus ?? "Training")))
      : h("p", { class: "empty" }, "Nothing planned in the next 7 days."),
  );
}

function dayCell(item) {
  return h(
    "li",
    { class: `day day-${item.kind}`, dataset: { date: item.date } },
    h("h5", { class: "day-title" }, day(item.date), h("span", { class: "day-focus" }, item.kind === "rest" ? "Rest" : item.focus ?? "Training")),
    item.workout && workoutCard(item.workout, { heading: "h6" }),
    item.recovery_notes && h("p", { class: "recovery" }, item.recovery_notes),
    item.message && h("details", { class: "day-message" }, h("summary", {}, "Message"), h("p", {}, item.message)),
  );
}

function calendar({ weeks, days }) {
  if (!weeks.length) return h("p", { class: "empty" }, "No week is built yet.");
  return h(
    "section",
    { class: "calendar", "aria-labelledby": "calendar-title" },
    h("h3", { id: "calendar-title" }, "Calendar"),
    weeks.map((week) => {
      const items = days
        .filter((item) => item.week_number === week.week_number)
        .sort((a, b) => a.date.localeCompare(b.date));
      const title = `Week ${week.week_number} · from ${day(week.start_date)}${week.deload ? " · deload" : ""}`;
      return h(
        "section",
        { class: "week", "aria-label": title },
        h("h4", {}, title, week.status !== "ready" ? ` (${week.status})` : ""),
        items.length ? h("ol", { class: "week-days" }, items.map(dayCell)) : h("p", { class: "empty" }, week.error ?? "No days yet."),
      );
    }),
  );
}
