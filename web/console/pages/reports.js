// Reports: each job with its recent period keys (GET /v1/reports), once the
// server has reports.
import { optionalApi } from "../api.js";
import { h, formatTime, unavailable } from "../dom.js";

// The jobs of the answer, whatever it is wrapped in.
function jobsOf(answer) {
  if (Array.isArray(answer)) return answer;
  for (const key of ["reports", "jobs", "items"]) if (Array.isArray(answer[key])) return answer[key];
  return [];
}

function runsOf(job) {
  for (const key of ["periods", "runs", "recent", "recent_periods"]) if (Array.isArray(job[key])) return job[key];
  return [];
}

function cell(value) {
  if (value === null || value === undefined) return "—";
  if (typeof value === "string" && /^\d{4}-\d\d-\d\dT/.test(value)) return formatTime(value);
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

export async function reportsPage(main) {
  const answer = await optionalApi("/v1/reports");
  if (answer === null) {
    main.replaceChildren(h("h1", {}, "Reports"), unavailable("Reports (GET /v1/reports)"));
    return;
  }
  const jobs = jobsOf(answer);
  main.replaceChildren(
    h("h1", {}, "Reports"),
    jobs.length === 0 ? h("p", { class: "muted", role: "note" }, "No report jobs are configured ([[reports]] in the configuration).") : null,
    jobs.map((job) => {
      const runs = runsOf(job);
      const facts = Object.entries(job).filter(([, v]) => !Array.isArray(v) && (typeof v !== "object" || v === null));
      const columns = [...new Set(runs.flatMap((r) => (typeof r === "object" ? Object.keys(r) : ["period_key"])))];
      return h(
        "section",
        { class: "card", "data-report": job.name || "" },
        h("h2", {}, job.name || "report"),
        h("dl", { class: "facts" }, facts.filter(([k]) => k !== "name").map(([k, v]) => [h("dt", {}, k), h("dd", {}, cell(v))])),
        runs.length === 0
          ? h("p", { class: "muted" }, "No period reported yet.")
          : h(
              "table",
              {},
              h("thead", {}, h("tr", {}, columns.map((c) => h("th", { scope: "col" }, c)))),
              h("tbody", {}, runs.map((r) => h("tr", {}, columns.map((c) => h("td", {}, typeof r === "object" ? cell(r[c]) : String(r)))))),
            ),
      );
    }),
  );
}
