// A notification's workflow (GET /v1/notifications/{id} "workflow"): each
// step done, in order, as a vertical timeline, and what comes next.
import { h, formatTime, relativeTime, statusBadge } from "../dom.js";

// Outcomes that let the run go on (green), held it (amber), ended in a
// failure (red); the rest (skipped, condition_false, digested, canceled,
// ended) grey.
const OUTCOME_TONE = {
  sent: "ok", passed: "ok", queued: "ok", digest_closed: "ok",
  delayed: "wait", scheduled: "wait", throttled: "wait",
  failed: "bad",
};

function outcomeBadge(outcome) {
  const tone = OUTCOME_TONE[outcome] || "quiet";
  return h("span", { class: `badge outcome outcome-${tone}`, "data-outcome": outcome }, outcome.replaceAll("_", " "));
}

function channelBadge(channel) {
  return channel ? h("span", { class: `badge channel-${channel}` }, channel) : null;
}

function time(iso, prefix) {
  return h("time", { datetime: iso, title: relativeTime(iso) }, `${prefix}${formatTime(iso)}`);
}

function stepItem(step) {
  return h(
    "li",
    { class: "timeline-step", "data-step": String(step.index), "data-outcome": step.outcome },
    h("span", { class: `timeline-dot outcome-${OUTCOME_TONE[step.outcome] || "quiet"}`, "aria-hidden": "true" }),
    h(
      "div",
      { class: "timeline-head" },
      h("strong", {}, `Step ${step.index + 1}`),
      step.name ? h("span", { class: "timeline-name" }, step.name) : null,
      step.type ? h("span", { class: "timeline-type" }, step.type) : null,
      outcomeBadge(step.outcome),
      channelBadge(step.channel),
      step.delivery_id ? h("span", { class: "muted" }, `delivery #${step.delivery_id}`) : null,
    ),
    h(
      "div",
      { class: "timeline-times muted" },
      time(step.at, ""),
      step.until ? [" · ", time(step.until, "until ")] : null,
    ),
    step.detail ? h("p", { class: "timeline-detail" }, step.detail) : null,
  );
}

// The step the run is due to take (active: at due_at) or waits on (the
// delivery of a channel step); none once it is done or canceled.
function nextItem(workflow) {
  if (workflow.status !== "active" && workflow.status !== "waiting") return null;
  const when =
    workflow.status === "waiting"
      ? "waiting for its delivery"
      : workflow.due_at ? time(workflow.due_at, "due ") : "due now";
  return h(
    "li",
    { class: "timeline-step timeline-next", "data-step": String(workflow.step), "data-next": workflow.status },
    h("span", { class: "timeline-dot", "aria-hidden": "true" }),
    h("div", { class: "timeline-head" }, h("strong", {}, `Step ${workflow.step + 1}`), h("span", { class: "muted" }, "next")),
    h("div", { class: "timeline-times muted" }, when),
  );
}

// The "Workflow" card, or null when the notification has no workflow.
export function workflowCard(workflow) {
  if (!workflow) return null;
  const steps = workflow.steps || [];
  return h(
    "section",
    { class: "card", "aria-labelledby": "workflow-heading", "data-workflow": workflow.status },
    h(
      "div",
      { class: "section-head" },
      h("h2", { id: "workflow-heading" }, "Workflow"),
      h(
        "span",
        { class: "muted" },
        statusBadge(workflow.status),
        workflow.due_at && workflow.status === "active" ? [" next step due ", time(workflow.due_at, "")] : null,
      ),
    ),
    steps.length === 0 && !nextItem(workflow)
      ? h("p", { class: "muted" }, "No step has run.")
      : h("ol", { class: "timeline", "aria-label": "Workflow steps" }, steps.map(stepItem), nextItem(workflow)),
  );
}
