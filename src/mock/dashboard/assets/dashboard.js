// The dashboard's script: reads and changes the mock only through its control
// calls (JSON, same origin), and polls the request log once a second.

const $ = (selector, root = document) => root.querySelector(selector);
const el = (tag, props = {}, ...children) => {
  const node = Object.assign(document.createElement(tag), props);
  for (const child of children) node.append(child ?? "");
  return node;
};

async function call(method, path, body) {
  const res = await fetch(path, {
    method,
    credentials: "same-origin",
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  const value = text ? JSON.parse(text) : undefined;
  if (!res.ok) throw new Error(value?.Message ?? `${method} ${path}: HTTP ${res.status}`);
  return value;
}

function say(text, isError = false) {
  const box = $("#message");
  box.textContent = text;
  box.className = isError ? "error" : "";
  box.hidden = false;
  clearTimeout(say.timer);
  say.timer = setTimeout(() => (box.hidden = true), 5000);
}

/** Runs a change, says what happened, and shows the state again. */
async function change(what, method, path, body) {
  try {
    await call(method, path, body);
    say(what);
  } catch (err) {
    say(err.message, true);
  }
  await refresh();
}

function renderScenarios(s) {
  const active = $("#active");
  active.hidden = !s.active;
  active.textContent = s.active ? `scenarios on: ${s.active}` : "";
  active.title = s.active;
  for (const kind of ["fault", "tolerated"]) {
    const list = $(kind === "fault" ? "#faults" : "#tolerated");
    list.replaceChildren(
      ...s.switches
        .filter((sw) => sw.kind === kind)
        .map((sw) => {
          const box = el("input", { type: "checkbox", checked: sw.on, name: sw.name });
          box.addEventListener("change", () =>
            change(
              `${sw.name} is ${box.checked ? "on" : "off"}`,
              "POST",
              `/__mock/scenarios/${encodeURIComponent(sw.name)}`,
              { on: box.checked },
            ),
          );
          return el(
            "li",
            { className: sw.on ? "on" : "" },
            el(
              "label",
              {},
              box,
              el("span", {}, el("span", { className: "name" }, sw.name), el("span", { className: "what" }, sw.what)),
            ),
          );
        }),
    );
  }
  $("#rules tbody").replaceChildren(
    ...Object.entries(s.rules).map(([name, { value, default: def }]) => {
      let input;
      if (typeof def === "boolean") {
        input = el("input", { type: "checkbox", checked: value, name });
        input.addEventListener("change", () =>
          change(`${name} = ${input.checked}`, "POST", "/__mock/rules", { [name]: input.checked }),
        );
      } else if (typeof def === "number") {
        input = el("input", { type: "number", value: String(value), name });
        input.addEventListener("change", () =>
          change(`${name} = ${input.value}`, "POST", "/__mock/rules", { [name]: Number(input.value) }),
        );
      } else {
        input = el(
          "select",
          { name },
          ...["pascal", "camel"].map((v) => el("option", { value: v, selected: v === value }, v)),
        );
        input.addEventListener("change", () =>
          change(`${name} = ${input.value}`, "POST", "/__mock/rules", { [name]: input.value }),
        );
      }
      return el(
        "tr",
        { className: value === def ? "" : "changed" },
        el("td", { className: "mono" }, name),
        el("td", {}, input),
        el("td", { className: "muted" }, String(def)),
      );
    }),
  );
  const effects = [
    ...Object.entries(s.latency).map(([route, ms]) => [
      `${route}: +${ms} ms`,
      () => change(`no latency on ${route}`, "POST", "/__mock/latency", { route, ms: 0 }),
    ]),
    ...Object.entries(s.failures).map(([route, f]) => [
      `${route}: next ${f.remaining} answers ${f.status}`,
      () => change(`${route} answers normally`, "POST", "/__mock/failures", { route, status: f.status, count: 0 }),
    ]),
  ];
  $("#effects").replaceChildren(
    ...effects.map(([text, undo]) => {
      const button = el("button", {}, "remove");
      button.addEventListener("click", undo);
      return el("li", {}, text, " ", button);
    }),
  );
}

function renderRoutes(routes) {
  for (const select of document.querySelectorAll("select.routes")) {
    if (select.options.length) continue;
    select.append(...routes.map((r) => el("option", { value: r }, r === "*" ? "every route" : r)));
  }
}

function renderTokens(tokens) {
  $("#tokens tbody").replaceChildren(
    ...tokens
      .slice(-50)
      .reverse()
      .map((t) => {
        const expire = el("button", {}, t.kind === "access" ? "expire" : "revoke");
        expire.addEventListener("click", () =>
          change(
            `${t.kind} token ${t.prefix}... ${t.kind === "access" ? "expired" : "revoked"}`,
            "POST",
            `/__mock/tokens/${t.kind === "access" ? "expire" : "revoke"}`,
            { token: t.prefix },
          ),
        );
        const revoke = el("button", { className: "danger" }, "revoke");
        revoke.addEventListener("click", () =>
          change(`token ${t.prefix}... revoked`, "POST", "/__mock/tokens/revoke", { token: t.prefix }),
        );
        return el(
          "tr",
          {},
          el("td", {}, t.kind),
          el("td", { className: "mono" }, `${t.prefix}…`),
          el("td", {}, t.clientId),
          el("td", {}, t.user),
          el("td", { className: `state-${t.state}` }, t.state),
          el("td", { className: "muted" }, t.expiresAt ?? "never"),
          el(
            "td",
            {},
            t.state === "valid" ? expire : "",
            " ",
            t.state === "valid" && t.kind === "access" ? revoke : "",
          ),
        );
      }),
  );
}

function renderApplications(apps) {
  $("#applications tbody").replaceChildren(
    ...apps.map((a) => {
      const activate = el("button", {}, "activate");
      activate.addEventListener("click", () =>
        change(
          `${a.clientId} is Actief`,
          "POST",
          `/__mock/applications/${encodeURIComponent(a.clientId)}/activate`,
          {},
        ),
      );
      return el(
        "tr",
        {},
        el("td", { className: "mono" }, a.clientId),
        el("td", {}, a.name),
        el("td", {}, a.status),
        el("td", { className: "mono" }, a.redirectUri),
        el("td", { className: "mono" }, a.clientSecret ?? "—"),
        el("td", {}, a.status === "Actief" ? "" : activate),
      );
    }),
  );
}

// The contract's resources (GET /__mock/resources): read once, they do not change while the mock runs.
let model;
/** What "view" shows: the objects of one collection, in one database or of the whole service. */
let shown;
async function showObjects(collection, db) {
  shown = { collection, db };
  const c = model.collections.find((x) => x.name === collection);
  const path = c.perDatabase
    ? `/__mock/databases/${encodeURIComponent(db)}/${encodeURIComponent(collection)}`
    : `/__mock/objects/${encodeURIComponent(collection)}`;
  const objects = await call("GET", path);
  $("#objects").hidden = false;
  $("#objects-title").textContent =
    `${collection}${c.perDatabase ? ` of ${db}` : ""} (${objects.length}${objects.length > 200 ? ", the first 200 shown" : ""})`;
  $("#objects thead tr").replaceChildren(...c.columns.map((k) => el("th", {}, k)));
  $("#objects tbody").replaceChildren(
    ...objects
      .slice(0, 200)
      .map((o) => el("tr", {}, ...c.columns.map((k) => el("td", {}, o[k] == null ? "" : String(o[k]))))),
  );
}

function renderDatabases(databases) {
  const perDatabase = model.collections.filter((c) => c.perDatabase);
  $("#databases thead tr").replaceChildren(
    el("th", {}, "database"),
    ...perDatabase.map((c) => el("th", {}, c.name)),
    el("th", {}),
  );
  $("#databases tbody").replaceChildren(
    ...databases.map((d) => {
      const reset = el("button", { className: "danger" }, "reset");
      reset.addEventListener("click", () =>
        change(
          `${d.database} restored from the seed`,
          "POST",
          `/__mock/databases/${encodeURIComponent(d.database)}/reset`,
          {},
        ),
      );
      const counts = perDatabase.map((c) => {
        const view = el("button", { title: `the ${c.name} objects of ${d.database}` }, "view");
        view.dataset.collection = c.name;
        view.addEventListener("click", () => showObjects(c.name, d.database));
        return el("td", {}, `${d.objects[c.name] ?? 0} `, view);
      });
      return el("tr", {}, el("td", { className: "mono" }, d.database), ...counts, el("td", {}, reset));
    }),
  );
  if (shown) showObjects(shown.collection, shown.db).catch(() => undefined);
}

function renderResources() {
  $("#resources tbody").replaceChildren(
    ...model.resources.map((r) => {
      const c = model.collections.find((x) => x.name === r.collection);
      const data = c.perDatabase ? `${c.name}, per database` : `${c.name} (${c.total}), for the whole service`;
      const cell = el("td", {}, data);
      if (!c.perDatabase) {
        const view = el("button", {}, "view");
        view.addEventListener("click", () => showObjects(c.name));
        cell.append(" ", view);
      }
      return el(
        "tr",
        {},
        el("td", { className: "mono" }, r.name),
        el("td", {}, r.kind),
        cell,
        el("td", { className: "mono" }, r.operations.map((o) => `${o.method} ${o.path}`).join("\n")),
      );
    }),
  );
  const notServed = $("#not-served");
  const detached = model.detached ?? [];
  notServed.hidden = model.notServed.length === 0 && detached.length === 0;
  notServed.textContent = [
    ...model.notServed.map(
      (u) => `stateless, answered from the contract's example or schema: ${u.method} ${u.path}: ${u.reason}`,
    ),
    ...detached.map((d) => `detached: ${d.text}`),
  ].join("\n");
}

/** The rules an answer broke (bawa proxy's judgement): requirement id, where, expected, found. */
function violationList(violations) {
  return el(
    "ul",
    { className: "violations" },
    ...violations.map((v) =>
      el(
        "li",
        {},
        el("span", { className: "requirement mono" }, v.requirement),
        " ",
        el("span", { className: "mono" }, v.where),
        `: expected ${v.expected}`,
        v.found === undefined ? "" : `, found ${v.found}`,
      ),
    ),
  );
}

/**
 * When the request came, on the machine's clock; and, once the mock's clock was moved, the time on
 * it the request was answered (and, in bawa proxy, judged) at, which is what tokens age by.
 */
function timeCell(e) {
  const moved = Math.abs(Date.parse(e.mockTime) - Date.parse(e.time)) > 1000;
  return el(
    "td",
    { className: "muted", title: moved ? `on the mock's clock: ${e.mockTime}` : "" },
    e.time.slice(11, 23),
    moved ? el("div", { className: "mock-time" }, `mock ${e.mockTime.slice(5, 10)} ${e.mockTime.slice(11, 19)}`) : "",
  );
}

/** bawa proxy's figures since it started (the mock's log has none): what it judged, what broke a rule. */
function judgement(judged, broke) {
  if (judged === undefined) return "";
  const answers = (n) => `${n.toLocaleString("en")} ${n === 1 ? "answer" : "answers"}`;
  if (judged === 0) return "; no answer judged yet";
  if (broke === 0) return `; ${answers(judged)} judged, none broke a rule`;
  return `; ${answers(judged)} judged, ${broke.toLocaleString("en")} broke a rule`;
}

let lastRequest = 0;
async function pollRequests() {
  try {
    const { size, entries, judged, violated: broke } = await call("GET", `/__mock/requests?after=${lastRequest}`);
    const body = $("#requests tbody");
    for (const e of entries) {
      lastRequest = e.id;
      const notes = [e.problem, e.ignored?.length ? `ignored: ${e.ignored.join(", ")}` : ""]
        .filter(Boolean)
        .join(" · ");
      body.prepend(
        el(
          "tr",
          { className: `fresh status-${String(e.status)[0]}${e.violations?.length ? " violated" : ""}` },
          timeCell(e),
          el("td", {}, e.method),
          el("td", { className: "path mono" }, e.path),
          el("td", { className: "status" }, String(e.status)),
          el("td", {}, String(e.ms)),
          el("td", {}, e.client ?? ""),
          el("td", { className: "user" }, e.user ?? ""),
          el("td", {}, e.database ?? ""),
          el(
            "td",
            {},
            el("span", { className: "problem" }, notes),
            e.scenarios ? el("span", { className: "muted scenarios" }, ` scenarios: ${e.scenarios}`) : "",
            e.violations?.length ? violationList(e.violations) : "",
          ),
        ),
      );
    }
    while (body.rows.length > 200) body.deleteRow(-1);
    $("#requests-note").textContent = `(the last ${size} are kept${judgement(judged, broke)})`;
  } catch {
    // The mock may be restarting; the next poll tries again.
  }
}

async function refresh() {
  try {
    model ??= await call("GET", "/__mock/resources");
    const [scenarios, clock, tokens, apps, databases] = await Promise.all([
      call("GET", "/__mock/scenarios"),
      call("GET", "/__mock/clock"),
      call("GET", "/__mock/tokens"),
      call("GET", "/__mock/applications"),
      call("GET", "/__mock/databases"),
    ]);
    renderScenarios(scenarios);
    renderRoutes(scenarios.routes);
    $("#clock").textContent = `mock time ${clock.now.replace("T", " ").slice(0, 19)} UTC`;
    renderTokens(tokens);
    renderApplications(apps);
    renderDatabases(databases);
    renderResources();
  } catch (err) {
    say(err.message, true);
  }
}

/** bawa proxy's dashboard: only the requests it forwarded, with the rules their answers broke. */
function startProxyDashboard() {
  const target = document.body.dataset.target;
  $("h1").textContent = "bawa proxy";
  $("#clock").textContent = `in front of ${target}`;
  $("#reset").hidden = true;
  // One section is left: the links to the others would lead nowhere.
  $("#sections").hidden = true;
  // A proxy sees no login it could tie to a token: its user column would stay empty.
  document.body.classList.add("proxy");
  for (const section of document.querySelectorAll("main > section:not(#requests-section)")) section.hidden = true;
  pollRequests();
  setInterval(pollRequests, 1000);
}

document.addEventListener("DOMContentLoaded", () => {
  if (document.body.dataset.mode === "proxy") {
    startProxyDashboard();
    return;
  }
  // One click would end every object a frontend team made in a day's work: it asks first.
  $("#reset").addEventListener("click", () => {
    const what = $("#reset").title;
    if (!window.confirm(`Reset everything? ${what.charAt(0).toUpperCase()}${what.slice(1)}.`)) return;
    change("everything is back to the start", "POST", "/__mock/reset", {});
  });
  for (const button of document.querySelectorAll("[data-advance]")) {
    button.addEventListener("click", () =>
      change(`the clock moved ${button.dataset.advance} s`, "POST", "/__mock/clock", {
        advanceSeconds: Number(button.dataset.advance),
      }),
    );
  }
  $("#advance-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const seconds = Number(new FormData(e.target).get("seconds"));
    change(`the clock moved ${seconds} s`, "POST", "/__mock/clock", { advanceSeconds: seconds });
  });
  $("#expire-all").addEventListener("click", () =>
    change("every access token expired", "POST", "/__mock/tokens/expire", { all: true }),
  );
  $("#revoke-all").addEventListener("click", () =>
    change("every token revoked", "POST", "/__mock/tokens/revoke", { all: true }),
  );
  $("#latency-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const f = new FormData(e.target);
    change(`${f.get("route")} answers after ${f.get("ms")} ms`, "POST", "/__mock/latency", {
      route: f.get("route"),
      ms: Number(f.get("ms")),
    });
  });
  $("#failure-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const f = new FormData(e.target);
    const count = Number(f.get("count"));
    change(`the next ${count} answers of ${f.get("route")} are ${f.get("status")}`, "POST", "/__mock/failures", {
      route: f.get("route"),
      status: Number(f.get("status")),
      count,
    });
  });
  refresh();
  pollRequests();
  setInterval(pollRequests, 1000);
  setInterval(refresh, 5000);
});
