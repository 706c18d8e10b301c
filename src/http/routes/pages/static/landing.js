// Fills the landing page from the service's own free endpoints: the price table from v1/pricing, the source
// coverage and the demo from v1/demo. Every value from an answer is written with textContent (never innerHTML),
// so a notice title or a buyer name is always shown as text, whatever characters it holds. URLs are resolved
// against the page, so the page works under any base path.

/** Creates an element with text content (and attributes). */
function el(tag, text, attributes) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) {
    node.textContent = String(text);
  }
  for (const [name, value] of Object.entries(attributes ?? {})) {
    node.setAttribute(name, value);
  }
  return node;
}

/** A table row of cells; the first cell is the row header. */
function row(cells) {
  const tr = document.createElement("tr");
  cells.forEach((cell, i) => {
    const node = el(i === 0 ? "th" : "td", cell);
    if (i === 0) {
      node.setAttribute("scope", "row");
    }
    tr.append(node);
  });
  return tr;
}

/** A link when the value is an http(s) URL (never javascript: or data:), else text. */
function linkOrText(value) {
  try {
    const url = new URL(value);
    if (url.protocol === "https:" || url.protocol === "http:") {
      return el("a", value, { href: url.href, rel: "noopener noreferrer" });
    }
  } catch {
    // Not a URL: shown as text.
  }
  return document.createTextNode(value);
}

function shown(value) {
  return value === null || value === undefined || value === "" ? "unknown" : String(value);
}

function money(amount, currency) {
  if (amount === null || amount === undefined) {
    return "unknown";
  }
  try {
    return new Intl.NumberFormat("en", { style: "currency", currency: currency ?? "EUR" }).format(amount);
  } catch {
    return `${amount} ${currency ?? ""}`.trim();
  }
}

async function getJson(path) {
  const res = await fetch(new URL(path, document.baseURI), { headers: { accept: "application/json" } });
  if (!res.ok) {
    throw new Error(`${path} answered HTTP ${res.status}`);
  }
  return res.json();
}

/** Replaces a table's body with the rows, or with one message row. */
function fillTable(id, rows, empty) {
  const table = document.getElementById(id);
  const tbody = table.tBodies[0];
  tbody.replaceChildren(...rows);
  if (rows.length === 0) {
    tbody.append(el("tr"));
    tbody.rows[0].append(el("td", empty, { colspan: String(table.tHead.rows[0].cells.length) }));
  }
}

async function showPricing() {
  try {
    const { data } = await getJson("v1/pricing");
    const paid = data.endpoints.filter((e) => !e.free);
    const free = data.endpoints.filter((e) => e.free);
    fillTable(
      "prices",
      [...paid, ...free].map((e) => row([e.endpoint, e.free ? "free" : e.price_usd])),
      "No endpoints listed.",
    );
    const mode = document.getElementById("payments-mode");
    const parts = [];
    if (data.payments_mode === "dev") {
      parts.push(
        `This deployment runs in development payments mode: ${shown(data.payment_flow.faucet)} hands out single-use tokens to send as X-PAYMENT, and no money moves.`,
      );
    } else {
      parts.push("This deployment takes real USDC payments over x402.");
    }
    parts.push(
      data.subscription.available
        ? `Subscription: ${data.subscription.price_monthly} ${data.subscription.currency} a month.`
        : "No subscription is offered on this deployment.",
    );
    mode.textContent = parts.join(" ");
  } catch (error) {
    fillTable("prices", [], `Prices could not be loaded (${error.message}).`);
  }
}

function showCoverage(sources) {
  fillTable(
    "sources",
    sources.map((s) =>
      row([
        s.source === "placsp" ? "placsp (Spain, PLACSP)" : "ted (EU, TED)",
        s.records.toLocaleString("en"),
        shown(s.indexed_from),
        shown(s.indexed_to),
        s.last_ingestion
          ? `${new Date(s.last_ingestion).toISOString().replace("T", " ").slice(0, 16)} UTC`
          : "never",
        s.enabled ? "yes" : "no",
      ]),
    ),
    "No sources reported.",
  );
}

/** A description list of [term, value] pairs; a value may be a node. Null values are left out. */
function details(pairs) {
  const dl = el("dl");
  for (const [term, value] of pairs) {
    if (value === null || value === undefined) {
      continue;
    }
    dl.append(el("dt", term));
    const dd = el("dd");
    dd.append(value instanceof Node ? value : document.createTextNode(String(value)));
    dl.append(dd);
  }
  return dl;
}

function evidenceList(evidence) {
  const ul = el("ul");
  for (const item of evidence) {
    const li = el("li");
    li.append(linkOrText(item));
    ul.append(li);
  }
  return ul;
}

function tenderBlock(tender) {
  const section = el("section", null, { "aria-labelledby": "sample-tender" });
  section.append(el("h3", "Sample tender", { id: "sample-tender" }));
  const buyer = [tender.buyer.name, tender.buyer.country].filter(Boolean).join(", ");
  section.append(
    details([
      ["Title", shown(tender.title)],
      ["Buyer", shown(buyer)],
      ["CPV", shown(tender.cpv_main)],
      ["Estimated value", money(tender.estimated_value, tender.currency)],
      ["Published", shown(tender.published_at)],
      ["Reference", `${tender.source_ref} (${tender.source})`],
      ["Evidence", evidenceList(tender.evidence)],
    ]),
  );
  return section;
}

const SIGNAL_TYPES = {
  duration_expiry: "contract expiry (duration_expiry)",
  framework_expiry: "framework agreement expiry (framework_expiry)",
  recurrence: "recurring purchase (recurrence)",
};

function renewalBlock(renewal) {
  const section = el("section", null, { "aria-labelledby": "sample-renewal" });
  section.append(el("h3", "Sample renewal signal", { id: "sample-renewal" }));
  const basis = renewal.basis ?? {};
  section.append(
    details([
      ["Type", SIGNAL_TYPES[renewal.signal_type] ?? renewal.signal_type],
      ["Incumbent", shown(renewal.incumbent)],
      ["Contract", shown(renewal.contract.title)],
      ["Contract ends", renewal.contract.end_date ?? (basis.signal_type === "recurrence" ? null : "unknown")],
      ["Latest end with extensions", basis.max_end_date ?? null],
      ["Predicted re-tender", basis.predicted_date ?? null],
      ["Confidence", renewal.confidence],
      ["Window", basis.window_rule ?? null],
      ["Reference", `${renewal.source_ref} (${renewal.source})`],
      ["Evidence", evidenceList(renewal.evidence)],
    ]),
  );
  return section;
}

async function runDemo() {
  const output = document.getElementById("demo-output");
  output.replaceChildren(el("p", "Running the demo…"));
  try {
    const body = await getJson("v1/demo");
    const { data } = body;
    showCoverage(data.source_metadata);
    const blocks = [el("p", data.note, { class: "note" })];
    if (data.tender) {
      blocks.push(tenderBlock(data.tender));
    }
    if (data.renewal) {
      blocks.push(renewalBlock(data.renewal));
    }
    const raw = el("details");
    raw.append(el("summary", "The raw answer (JSON)"), el("pre", JSON.stringify(body, null, 2)));
    blocks.push(raw);
    output.replaceChildren(...blocks);
  } catch (error) {
    output.replaceChildren(el("p", `The demo could not be loaded (${error.message}).`));
    fillTable("sources", [], "Coverage could not be loaded.");
  }
}

document.getElementById("demo-run").addEventListener("click", () => {
  runDemo();
});
showPricing();
runDemo();
