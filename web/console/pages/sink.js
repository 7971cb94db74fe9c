// The sink inbox: every message a sink channel "sent", shown as its user
// would have seen it. Emails render in a sandboxed frame (no scripts, no
// same-origin access); Telegram's HTML keeps only the tags Telegram knows.
import {api, channelNames, query} from '../api.js';
import {errorBox, formatTime, h, relativeTime} from '../dom.js';

const REFRESH_MS = 3000;
const TELEGRAM_TAGS = new Set(["B", "STRONG", "I", "EM", "U", "INS", "S", "STRIKE", "DEL", "CODE", "PRE", "A", "BLOCKQUOTE"]);

// Telegram's parse_mode HTML as DOM nodes: allowed tags are rebuilt, links
// only with http(s) targets, everything else becomes its text.
function telegramNodes(html) {
  const doc = new DOMParser().parseFromString(`<body>${html.replace(/\n/g, "<br>")}</body>`, "text/html");
  const copy = (node) => {
    if (node.nodeType === Node.TEXT_NODE) return document.createTextNode(node.textContent);
    if (node.nodeName === "BR") return document.createElement("br");
    if (node.nodeType !== Node.ELEMENT_NODE) return document.createTextNode("");
    const children = [...node.childNodes].map(copy);
    if (!TELEGRAM_TAGS.has(node.nodeName)) {
      const fragment = document.createDocumentFragment();
      fragment.append(...children);
      return fragment;
    }
    const out = document.createElement(node.nodeName.toLowerCase());
    if (node.nodeName === "A") {
      const href = node.getAttribute("href") || "";
      if (/^https?:\/\//i.test(href)) {
        out.setAttribute("href", href);
        out.setAttribute("rel", "noopener noreferrer");
        out.setAttribute("target", "_blank");
      }
    }
    out.append(...children);
    return out;
  };
  return [...doc.body.childNodes].map(copy);
}

function header(message, label) {
  return h(
    "header",
    { class: "message-head" },
    h("span", { class: `badge channel-${message.channel}` }, label),
    h("span", {}, "to ", h("strong", {}, message.address || `user ${message.user_id}`)),
    h("a", { href: `#/users/${message.user_id}` }, `user ${message.user_id}`),
    message.notification_id ? h("a", { href: `#/notifications/${message.notification_id}` }, `notification #${message.notification_id}`) : null,
    h("time", { datetime: message.created_at, title: formatTime(message.created_at) }, relativeTime(message.created_at)),
  );
}

function messageCard(m) {
  const attributes = { class: `card message message-${m.channel}`, "data-message": m.id, "data-channel": m.channel };
  switch (m.channel) {
    case "email":
      return h(
        "article",
        attributes,
        header(m, "email"),
        h("h3", { class: "subject" }, m.title),
        m.html
          ? h("iframe", { class: "email-frame", sandbox: "", srcdoc: m.html, title: `Email: ${m.title}`, referrerpolicy: "no-referrer" })
          : h("pre", { class: "plain" }, m.body),
        h("details", {}, h("summary", {}, "text/plain part"), h("pre", { class: "plain" }, m.body)),
      );
    case "telegram":
      return h("article", attributes, header(m, "Telegram"), h("div", { class: "bubble telegram" }, telegramNodes(m.body || "")));
    case "push":
      return h("article", attributes, header(m, "push"), h("div", { class: "push-toast" }, h("strong", {}, m.title), h("span", {}, m.body)));
    case "sms":
      return h("article", attributes, header(m, "SMS"), h("div", { class: "bubble sms" }, m.body));
    case "discord":
    case "msteams":
    case "slack":
      // An embed (Discord), an Adaptive Card (Teams) or Block Kit blocks
      // (Slack): the title over the text.
      return h("article", attributes, header(m, { discord: "Discord", msteams: "Microsoft Teams", slack: "Slack" }[m.channel]),
               h("div", { class: `chat-card ${m.channel}` }, h("strong", {}, m.title), h("p", {}, m.body)));
    default:
      return h("article", attributes, header(m, m.channel), h("pre", {}, m.body));
  }
}

export async function sinkPage(main, _params, signal) {
  const channelOptions = ['', ...(await channelNames())];
  const channel =
      h('select', {id: 'sink-channel'},
        channelOptions.map((c) => h('option', {value: c}, c || 'all channels')));
  const user = h("input", { id: "sink-user", type: "number", min: 1 });
  const form = h("form", { class: "filters", role: "search" }, h("label", { for: "sink-channel" }, "Channel"), channel, h("label", { for: "sink-user" }, "User id"), user, h("button", { type: "submit" }, "Filter"));
  const list = h("div", { class: "messages" });
  const more = h("button", { type: "button", class: "quiet", hidden: true }, "Load more");
  main.replaceChildren(
    h("h1", {}, "Sink inbox"),
    h("p", { class: "muted" }, "Channels without provider credentials use the sink: what they would have sent is kept here, exactly as the user would receive it."),
    form,
    list,
    more,
  );
  let items = [];
  let cursor = null;
  async function load(append) {
    const page = await api(`/v1/sink/messages${query({ channel: channel.value, user_id: user.value, limit: 20, cursor: append ? cursor : null })}`);
    if (signal.aborted) return;
    if (!append && items.length && page.items.length && items[0].id === page.items[0].id) return; // nothing new
    items = append ? items.concat(page.items) : page.items;
    cursor = page.next_cursor;
    more.hidden = !cursor;
    list.replaceChildren(...(items.length ? items.map(messageCard) : [h("p", { class: "muted" }, "Nothing sent to the sink yet.")]));
  }
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    items = [];
    load(false).catch((error) => list.replaceChildren(errorBox(error)));
  });
  more.addEventListener("click", () => load(true));
  await load(false);
  const timer = setInterval(() => {
    if (!cursor || items.length <= 20) load(false).catch(() => {});
  }, REFRESH_MS);
  signal.addEventListener("abort", () => clearInterval(timer));
}
