const KG_PER_LB = 0.45359237;
const KM_PER_MI = 1.609344;

export const units = { weight: "kg", distance: "km" };

export function setUnits(settings) {
  units.weight = settings?.weight_unit ?? "kg";
  units.distance = settings?.distance_unit ?? "km";
}

const number = (value, digits = 1) =>
  Number(value).toLocaleString("en", { maximumFractionDigits: digits, minimumFractionDigits: 0 });

function convertLoad(value, from) {
  if (!from || from === units.weight) return value;
  const kg = from === "kg" ? value : value * KG_PER_LB;
  const converted = units.weight === "kg" ? kg : kg / KG_PER_LB;
  return Math.round(converted * 2) / 2;
}

function convertDistance(value, from) {
  if (!from || from === units.distance) return value;
  const km = from === "km" ? value : value * KM_PER_MI;
  return units.distance === "km" ? km : km / KM_PER_MI;
}

function perSet(values, suffix = "") {
  if (!values?.length) return "";
  const shown = values.map((value) => number(value));
  return new Set(shown).size === 1 ? `${shown[0]}${suffix}` : `${shown.join("/")}${suffix}`;
}

export function seconds(total) {
  const value = Math.round(Number(total) || 0);
  if (value < 60) return `${value} s`;
  const minutes = Math.floor(value / 60);
  const rest = value % 60;
  return rest ? `${minutes} min ${rest} s` : `${minutes} min`;
}

export function clock(total) {
  const value = Math.max(0, Math.round(total));
  return `${Math.floor(value / 60)}:${String(value % 60).padStart(2, "0")}`;
}

export function dose(exercise) {
  const sets = exercise.sets ?? exercise.reps?.length ?? exercise.hold_sec?.length;
  switch (exercise.exercise_type) {
    case "reps": {
      const loads = (exercise.load_each ?? []).filter((load) => load > 0);
      const load = loads.length
        ? ` @ ${perSet(loads.map((value) => convertLoad(value, exercise.load_unit)))} ${units.weight}`
        : "";
      return `${sets ?? 1} × ${perSet(exercise.reps) || "?"}${load}`;
    }
    case "hold":
      return `${sets ?? 1} × ${perSet(exercise.hold_sec, " s")} hold`;
    case "duration": {
      const parts = [`${number(exercise.duration_min ?? 0)} min`];
      if (exercise.distance) {
        parts.push(`${number(convertDistance(exercise.distance, exercise.distance_unit), 2)} ${units.distance}`);
      }
      if (exercise.target_pace) parts.push(exercise.target_pace);
      return parts.join(" · ");
    }
    case "intervals":
      return `${exercise.rounds ?? 1} rounds × ${exercise.work_sec ?? "?"} s work / ${exercise.rest_sec ?? 0} s rest`;
    default:
      return "";
  }
}

export function rest(exercise) {
  if (exercise.exercise_type === "intervals" || !exercise.rest_sec) return "";
  return `rest ${seconds(exercise.rest_sec)}`;
}

export function humanize(name) {
  const text = String(name ?? "").replace(/_/g, " ").trim();
  return text ? text[0].toUpperCase() + text.slice(1) : "";
}

export function cents(value) {
  const dollars = (Number(value) || 0) / 100;
  return `$${dollars.toFixed(dollars >= 1 ? 2 : 4)}`;
}

export function tokens(value) {
  return value === undefined || value === null ? "" : Number(value).toLocaleString("en");
}

export function percent(value) {
  return value === null || value === undefined || Number.isNaN(value) ? "–" : `${Math.round(value * 100)}%`;
}

export function time(iso) {
  const date = new Date(iso);
  return Number.isNaN(date.getTime())
    ? ""
    : date.toLocaleTimeString("en-GB", { hour: "2-digit", minute: "2-digit", second: "2-digit", fractionalSecondDigits: 3 });
}

export function dateTime(iso) {
  const date = new Date(iso);
  return Number.isNaN(date.getTime())
    ? ""
    : date.toLocaleString("en-GB", { day: "numeric", month: "short", hour: "2-digit", minute: "2-digit" });
}

export function milliseconds(value) {
  if (value === null || value === undefined) return "";
  return value >= 1000 ? `${number(value / 1000, 1)} s` : `${value} ms`;
}
