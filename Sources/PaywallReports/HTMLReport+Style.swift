extension HTMLReport {
    static let glossary = """
        <section class="glossary"><h2>How to read this page</h2><dl>
        <dt>Presentation</dt><dd>One showing of a paywall (one <code>pw_id</code>), counted on the day and at the placement of its first event.</dd>
        <dt>Impression</dt><dd>The paywall stayed on screen for the dwell time (1 s by default). Presentations closed sooner are <em>dwell bounces</em>.</dd>
        <dt>Purchases per impression</dt><dd>The placement's conversion: purchases divided by impressions. Every funnel step counts presentations with an impression, so each step is a subset of the one before.</dd>
        <dt>Of customers</dt><dd>The cohort and offering conversions divide by customers instead: customers who bought, of the customers who saw the paywall. A customer who sees it three times is one customer but three impressions, so the two rates differ.</dd>
        <dt>Forwarded by the app installs</dt><dd>Impressions the app installs sent to RevenueCat themselves (uploaded with forwarding on the device). This store never sent them; they are counted apart from the ones it delivered.</dd>
        <dt>Bounce / purchase cancellation</dt><dd>Dismissed without starting a purchase / dismissed after starting one.</dd>
        </dl></section>
        """

    static let style = """
        :root{--ink:#1d2430;--muted:#5b6575;--line:#dde2ea;--accent:#3559e0;--bg:#fff;--warn:#a15c00}
        *{box-sizing:border-box}body{margin:0;background:#f5f7fb;color:var(--ink);font:15px/1.5 -apple-system,BlinkMacSystemFont,"Segoe UI",Roboto,Helvetica,Arial,sans-serif}
        main{max-width:1180px;margin:0 auto;padding:16px}
        header h1{margin:8px 0 0;font-size:26px}.period{color:var(--muted);margin:4px 0 16px}
        section{background:var(--bg);border:1px solid var(--line);border-radius:8px;padding:16px;margin:0 0 16px;break-inside:avoid;page-break-inside:avoid}
        h2{font-size:19px;margin:0 0 12px}h3{font-size:15px;margin:16px 0 6px;color:var(--muted)}
        .figures{display:flex;flex-wrap:wrap;gap:8px}.figure{flex:1 1 120px;border:1px solid var(--line);border-radius:6px;padding:8px}
        .number{display:block;font-size:22px;font-weight:600}.caption{color:var(--muted);font-size:13px}
        .trends{display:grid;grid-template-columns:1fr;gap:4px}
        .chart{width:100%;height:auto;display:block}.funnel{max-width:560px}.chart .label,.chart .value,.chart .tick{font-size:13px;fill:var(--ink)}
        .chart .tick{fill:var(--muted);font-size:13px}.chart .axis-title{font-size:13px;font-weight:600;fill:var(--muted)}.chart .end{text-anchor:end}.chart .middle{text-anchor:middle}.chart .start{text-anchor:start}
        .bar{fill:var(--accent)}.bar1{opacity:.9}.bar2{opacity:.8}.bar3{opacity:.7}.bar4{fill:#1f9d55}
        .axis{stroke:#9aa3b2}.grid{stroke:var(--line);stroke-width:.5}.series{fill:none;stroke:var(--accent);stroke-width:2}.dot{fill:var(--accent)}.band{fill:var(--accent);opacity:.15;stroke:none}.band-line{stroke:var(--accent);opacity:.35;stroke-width:4}
        .s0{--c:var(--accent)}.s1{--c:#d9480f}.s2{--c:#2b8a3e}.s3{--c:#862e9c}.s4{--c:#c2255c}.s5{--c:#0b7285}.s6{--c:#5c940d}.s7{--c:#495057}
        .series.s1,.series.s2,.series.s3,.series.s4,.series.s5,.series.s6,.series.s7{stroke:var(--c)}.dot.s1,.dot.s2,.dot.s3,.dot.s4,.dot.s5,.dot.s6,.dot.s7{fill:var(--c)}
        .scroll{overflow-x:auto}table{border-collapse:collapse;width:100%;font-size:13px}
        th,td{border-bottom:1px solid var(--line);padding:4px 8px;text-align:left;white-space:nowrap}td.num{text-align:right;font-variant-numeric:tabular-nums}
        th{color:var(--muted);font-weight:600;white-space:normal;vertical-align:bottom;min-width:4em}th .per{font-weight:400;font-size:11px}.note,.empty{color:var(--muted)}
        .quality{border-radius:8px;padding:10px 14px;margin:0 0 16px}.quality.ok{background:#eaf7ee}.quality.warn{background:#fff4e0;color:var(--warn)}
        .quality ul{margin:4px 0 0}footer{color:var(--muted);font-size:12px;text-align:center;margin:24px 0}
        dt{font-weight:600}dd{margin:0 0 8px}
        bdi{unicode-bidi:isolate}.chart text{unicode-bidi:isolate;direction:ltr}
        .ctl{font:11px ui-monospace,Menlo,Consolas,monospace;border:1px solid var(--muted);border-radius:3px;padding:0 2px;margin:0 1px;color:var(--muted)}
        @media (max-width:640px){main{padding:8px}.trends{grid-template-columns:1fr}header h1{font-size:21px}section{padding:12px}}
        @media print{body{background:#fff}section{border:none;padding:0 0 12px}.scroll{overflow:visible}th,td{white-space:normal}}
        """
}
