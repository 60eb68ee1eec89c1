import { h, svg } from "./dom.js";
import { cents, percent } from "./format.js";

export function turnsOf(events) {
  const turns = [];
  for (const event of events) {
    if (event.event_type === "user_message") {
      turns.push({ number: turns.length + 1, message: event.data?.message ?? "", calls: 0, cost: 0, input: 0, written: 0, cached: 0, output: 0 });
      continue;
    }
    const turn = turns.at(-1);
    if (!turn || event.event_type !== "llm_response") continue;
    const tokens = event.data?.tokens ?? {};
    turn.calls += 1;
    turn.cost += Number(event.data?.cost_cents) || 0;
    turn.input += tokens.prompt ?? 0;
    turn.written += tokens.cache_write ?? 0;
    turn.cached += tokens.cached ?? 0;
    turn.output += tokens.completion ?? 0;
  }
  for (const turn of turns) {
    const sent = turn.input + turn.written + turn.cached;
    turn.hit = sent ? turn.cached / sent : null;
  }
  return turns;
}

const WIDTH = 640;
const HEIGHT = 220;
const PAD = { top: 16, right: 48, bottom: 32, left: 64 };

export function costChart(turns) {
  const plotWidth = WIDTH - PAD.left - PAD.right;
  const plotHeight = HEIGHT - PAD.top - PAD.bottom;
  const maxCost = Math.max(...turns.map((turn) => turn.cost), 0.0001);
  const slot = plotWidth / Math.max(turns.length, 1);
  const barWidth = Math.min(36, slot * 0.6);
  const x = (index) => PAD.left + slot * index + slot / 2;
  const yCost = (value) => PAD.top + plotHeight - (value / maxCost) * plotHeight;
  const yHit = (value) => PAD.top + plotHeight - value * plotHeight;
  const summary = turns.length
    ? `Cost and cache hit per turn for ${turns.length} turns: ` +
      turns.map((turn) => `turn ${turn.number} ${cents(turn.cost)}, cache hit ${percent(turn.hit)}`).join("; ")
    : "No turns yet";
  const hits = turns.filter((turn) => turn.hit !== null);
  const chart = svg(
    "svg",
    { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: "img", "aria-label": summary, class: "chart" },
    svg("line", { x1: PAD.left, y1: PAD.top + plotHeight, x2: WIDTH - PAD.right, y2: PAD.top + plotHeight, class: "axis" }),
    svg("text", { x: PAD.left - 8, y: PAD.top + 4, class: "tick", "text-anchor": "end" }, cents(maxCost)),
    svg("text", { x: PAD.left - 8, y: PAD.top + plotHeight, class: "tick", "text-anchor": "end" }, "$0"),
    svg("text", { x: WIDTH - PAD.right + 8, y: PAD.top + 4, class: "tick hit" }, "100%"),
    svg("text", { x: WIDTH - PAD.right + 8, y: PAD.top + plotHeight, class: "tick hit" }, "0%"),
    turns.map((turn, index) =>
      svg(
        "g",
        {},
        svg(
          "rect",
          { x: x(index) - barWidth / 2, y: yCost(turn.cost), width: barWidth, height: PAD.top + plotHeight - yCost(turn.cost), class: "bar" },
          svg("title", {}, `Turn ${turn.number}: ${cents(turn.cost)}`),
        ),
        svg("text", { x: x(index), y: HEIGHT - 10, class: "tick", "text-anchor": "middle" }, String(turn.number)),
      ),
    ),
    hits.length > 1 &&
      svg("polyline", {
        points: hits.map((turn) => `${x(turn.number - 1)},${yHit(turn.hit)}`).join(" "),
        class: "hit-line",
      }),
    hits.map((turn) =>
      svg(
        "circle",
        { cx: x(turn.number - 1), cy: yHit(turn.hit), r: 4, class: "hit-dot" },
        svg("title", {}, `Turn ${turn.number}: cache hit ${percent(turn.hit)}`),
      ),
    ),
  );
  return h(
    "figure",
    { class: "chart-figure" },
    chart,
    h(
      "figcaption",
      {},
      h("span", { class: "legend legend-cost" }, "Cost per turn (bars, left axis)"),
      " ",
      h("span", { class: "legend legend-hit" }, "Cache hit: cache reads ÷ input sent (dots, right axis)"),
    ),
  );
}
