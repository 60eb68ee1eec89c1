import { auth, api, localToken } from "./api.js";
import { notFound, showChat } from "./chat.js";
import { h, replace } from "./dom.js";
import { setUnits } from "./format.js";
import { showPlans } from "./plans.js";
import { showTimeline } from "./timeline.js";

const main = document.getElementById("main");
const who = document.getElementById("who");
const signOut = document.getElementById("sign-out");
const VIEWS = { chat: showChat, timeline: showTimeline, plans: showPlans };
const NOT_FOUND = { chat: "Session", timeline: "Session", plans: "Plan" };

function route() {
  const [view, id] = location.hash.replace(/^#\/?/, "").split("/");
  return { view: VIEWS[view] ? view : "chat", id: id ? decodeURIComponent(id) : null };
}

function markNav(view) {
  for (const link of document.querySelectorAll("nav.views a")) {
    if (link.dataset.view === view) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
}

function showUser() {
  const userId = auth.userId;
  who.textContent = userId ? `Signed in as ${userId.slice(0, 8)}…` : "";
  who.title = userId ?? "";
  signOut.hidden = !auth.token;
}

async function loadSettings() {
  const { settings } = await api("/user-settings");
  setUnits(settings);
}

async function signIn(token) {
  auth.token = token.trim();
  try {
    await loadSettings();
  } catch (error) {
    auth.token = null;
    throw error;
  }
  showUser();
  await render();
}

async function showSignIn(message) {
  showUser();
  const field = h("textarea", { id: "token", name: "token", rows: "4", required: true, spellcheck: "false", autocomplete: "off" });
  const error = h("p", { class: "notice", role: "alert", hidden: !message }, message ?? "");
  const fail = (problem) => {
    error.hidden = false;
    replace(error, `Sign-in failed: ${problem.message}`);
  };
  const local = h("div", { class: "local-sign-in" });
  replace(
    main,
    h(
      "section",
      { class: "view sign-in", "aria-labelledby": "sign-in-title" },
      h("h2", { id: "sign-in-title" }, "Sign in"),
      error,
      local,
      h(
        "form",
        {
          onsubmit: (event) => {
            event.preventDefault();
            signIn(field.value).catch(fail);
          },
        },
        h("label", { for: "token" }, "Bearer token (a JWT whose sub is the user id)"),
        field,
        h("button", { type: "submit" }, "Sign in with this token"),
      ),
    ),
  );
  const offered = await localToken();
  if (offered) {
    replace(
      local,
      h("button", { type: "button", class: "primary", onclick: () => signIn(offered.token).catch(fail) }, "Sign in as the demo user"),
      h("p", { class: "hint" }, "The local stack's dev token for ", h("code", {}, offered.userId), ". Or paste a token below."),
    );
  }
}

async function render() {
  const { view, id } = route();
  markNav(view);
  if (!auth.token) return showSignIn();
  try {
    await VIEWS[view](main, id);
  } catch (error) {
    if (error.status === 404) notFound(main, NOT_FOUND[view]);
    else if (error.status !== 401) {
      replace(main, h("section", { class: "view" }, h("p", { class: "notice", role: "alert" }, `Something went wrong: ${error.message}`)));
    }
  }
}

window.addEventListener("console:unauthorized", (event) => {
  auth.token = null;
  showSignIn(`Your token was refused (${event.detail.message}). Sign in again.`);
});

signOut.addEventListener("click", () => {
  auth.token = null;
  showSignIn();
});

window.addEventListener("hashchange", render);

showUser();
if (auth.token) await loadSettings().catch(() => {});
render();
