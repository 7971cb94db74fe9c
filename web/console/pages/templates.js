// Templates (docs/api.md "Templates and localization", "Versions and
// drafts"): every type's template; one template's versions, a line diff
// between any two of them or its draft, and — for a role that may manage
// templates — Restore and Publish.
import { ApiError, api, can, query } from "../api.js";
import { lineDiff, stableJson } from "../diff.js";
import { errorBox, formatTime, h, pagedList, relativeTime, table } from "../dom.js";

export async function templatesPage(main) {
  const { items } = await api("/v1/templates");
  main.replaceChildren(
    h("h1", {}, "Templates"),
    items.length === 0
      ? h("p", { class: "muted" }, "No templates yet. Store one with PUT /v1/templates/{type}.")
      : table(
          [
            { title: "type", cell: (t) => h("a", { href: `#/templates/${t.type}` }, t.type) },
            { title: "category", cell: (t) => t.category || "—" },
            { title: "locales", cell: (t) => Object.keys(t.locales).join(", ") },
            { title: "live version", cell: (t) => (t.version ? String(t.version) : "—") },
            { title: "updated", cell: (t) => h("time", { datetime: t.updated_at, title: formatTime(t.updated_at) }, relativeTime(t.updated_at)) },
          ],
          items,
          { rowAttributes: (t) => ({ "data-template": t.type }) },
        ),
  );
}

// The draft is compared as one more "version".
const DRAFT = "draft";

export async function templatePage(main, [type], signal) {
  const base = `/v1/templates/${encodeURIComponent(type)}`;
  const manage = can("manage");
  const message = h("div", { "aria-live": "polite" });
  const say = (text) => message.replaceChildren(h("p", { class: "notice", role: "status" }, text));
  const documents = new Map();  // version or DRAFT → its document
  let versions = [];
  let draft = null;

  async function documentOf(which) {
    if (which === DRAFT) return draft.document;
    if (!documents.has(which)) documents.set(which, (await api(`${base}/versions/${which}`)).document);
    return documents.get(which);
  }

  // Compare: two pickers of versions (and the draft), the diff below.
  const from = h("select", { id: "diff-from", name: "from" });
  const to = h("select", { id: "diff-to", name: "to" });
  const output = h("div", { class: "diff-output" });
  const compare = h(
    "form",
    { class: "filters", "aria-labelledby": "compare-title" },
    h("label", { for: "diff-from" }, "From"),
    from,
    h("label", { for: "diff-to" }, "To"),
    to,
    h("button", { type: "submit" }, "Show diff"),
  );
  async function showDiff() {
    const [a, b] = await Promise.all([documentOf(from.value), documentOf(to.value)]);
    const edits = lineDiff(stableJson(a), stableJson(b));
    const added = edits.filter((e) => e.op === "+").length;
    const removed = edits.filter((e) => e.op === "-").length;
    const name = (which) => (which === DRAFT ? "the draft" : `version ${which}`);
    output.replaceChildren(
      h("p", { class: "muted", "data-diff-summary": "" }, `${name(from.value)} → ${name(to.value)}: ${added} line${added === 1 ? "" : "s"} added, ${removed} removed`),
      h(
        "pre",
        { class: "diff", "data-from": from.value, "data-to": to.value, "aria-label": `Changes from ${name(from.value)} to ${name(to.value)}` },
        edits.map((e) =>
          h("span", { class: e.op === "+" ? "diff-add" : e.op === "-" ? "diff-del" : "diff-same", "data-op": e.op }, `${e.op} ${e.text}\n`),
        ),
      ),
    );
  }
  compare.addEventListener("submit", (event) => {
    event.preventDefault();
    showDiff().catch((error) => output.replaceChildren(errorBox(error)));
  });
  function fillPickers() {
    const options = (select) => {
      const keep = select.value;
      select.replaceChildren(
        ...(draft ? [h("option", { value: DRAFT }, "draft")] : []),
        ...versions.map((v) => h("option", { value: String(v.version) }, `version ${v.version}${v.live ? " (live)" : ""}`)),
      );
      if ([...select.options].some((o) => o.value === keep)) select.value = keep;
    };
    options(from);
    options(to);
    // By default: what is live against the draft, else the two newest.
    const live = versions.find((v) => v.live) ?? versions[0];
    if (draft && live) {
      from.value = String(live.version);
      to.value = DRAFT;
    } else if (versions.length >= 2) {
      from.value = String(versions[1].version);
      to.value = String(versions[0].version);
    }
  }

  async function act(path, done) {
    try {
      await api(path, { method: "POST" });
      say(done);
      await reload();
    } catch (error) {
      message.replaceChildren(errorBox(error));
    }
  }

  const versionList = pagedList({
    fetchJson: async (path) => {
      const page = await api(path);
      return { items: page.versions, next_cursor: page.next_cursor };
    },
    path: (cursor) => `${base}/versions${query({ limit: 50, cursor })}`,
    signal,
    render: (items) => {
      versions = items;
      fillPickers();
      if (items.length === 0) return h("p", { class: "muted" }, "No versions: this type has never had a template.");
      return table(
        [
          { title: "version", cell: (v) => h("span", {}, String(v.version), v.live ? h("span", { class: "badge status-sent" }, " live") : null) },
          { title: "stored", cell: (v) => h("time", { datetime: v.created_at, title: formatTime(v.created_at) }, relativeTime(v.created_at)) },
          { title: "by", cell: (v) => v.created_by || "—" },
          {
            title: "",
            cell: (v) =>
              manage && !v.live
                ? h(
                    "button",
                    {
                      type: "button",
                      class: "quiet",
                      "aria-label": `Restore version ${v.version}`,
                      onclick: () => act(`${base}/versions/${v.version}/restore`, `Version ${v.version} restored: it is live again, as a new version.`),
                    },
                    "Restore",
                  )
                : null,
          },
        ],
        items,
        { caption: "Versions, newest first", rowAttributes: (v) => ({ "data-version": v.version, "data-live": v.live ? "true" : "false" }) },
      );
    },
  });

  const draftBox = h("div", { "data-draft": "" });
  async function loadDraft() {
    try {
      draft = await api(`${base}/draft`);
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 404) throw error;
      draft = null;
    }
    draftBox.replaceChildren(
      draft
        ? h(
            "p",
            {},
            `A draft, last changed ${formatTime(draft.updated_at)}${draft.updated_by ? ` by ${draft.updated_by}` : ""}; it is never sent. `,
            manage
              ? h("button", { type: "button", onclick: () => act(`${base}/publish`, "The draft is published: it is live as a new version.") }, "Publish draft")
              : null,
          )
        : h("p", { class: "muted" }, "No draft."),
    );
  }

  async function reload() {
    documents.clear();
    await loadDraft();
    await versionList.load();
    if (from.value && to.value) await showDiff();
    else output.replaceChildren();
  }

  main.replaceChildren(
    h("h1", {}, `Template ${type}`),
    h("p", {}, h("a", { href: "#/templates" }, "All templates")),
    message,
    h("h2", {}, "Draft"),
    draftBox,
    h("h2", {}, "Versions"),
    ...versionList.nodes,
    h("h2", { id: "compare-title" }, "Compare"),
    compare,
    output,
  );
  await reload();
}
