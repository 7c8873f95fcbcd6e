// sharebench page script: draws every <figure data-chart=ID> of
// report.html and history.html with uPlot from the JSON block
// #chart-data (written by results/report, see charts.go for its fields).
//
// Interaction: hover shows the values in the legend; a click on a legend
// entry hides or shows its series; drag selects an x range to zoom into;
// the mouse wheel zooms x around the pointer, shift + wheel (or a
// horizontal swipe) pans; a double click resets the zoom. On history
// charts a click on the plot opens the hovered campaign's report.html.
//
// After drawing, each figure carries data-points (the data points inside
// the x range drawn) and, when the page is opened with #selftest,
// data-hover (the legend's value after a programmatic hover); the body
// carries data-charts-drawn and data-js-errors. The browser tests read
// them with chromium --dump-dom.
(function () {
  "use strict";

  var pctLabel = function (x) {
    if (x == null) return "–";
    if (x <= 1) return "p0";
    var q = 100 * (1 - 1 / x);
    return "p" + String(+q.toFixed(4));
  };

  function fmt(v) {
    if (v == null || !isFinite(v)) return "–";
    var a = Math.abs(v);
    if (a >= 1e6) return (v / 1e6).toFixed(2) + "M";
    if (a >= 1e4) return (v / 1e3).toFixed(1) + "k";
    if (a >= 100 || Number.isInteger(v)) return v.toFixed(0);
    if (a >= 1) return String(+v.toFixed(2));
    return String(+v.toPrecision(3));
  }

  function dateLabel(t) {
    if (t == null) return "–";
    return new Date(t * 1000).toISOString().slice(0, 16).replace("T", " ") + "Z";
  }

  // alpha turns #rrggbb into rgba with alpha a.
  function alpha(hex, a) {
    var n = parseInt(hex.slice(1), 16);
    if (hex.length === 4) {
      n = parseInt(hex[1] + hex[1] + hex[2] + hex[2] + hex[3] + hex[3], 16);
    }
    return "rgba(" + (n >> 16 & 255) + "," + (n >> 8 & 255) + "," + (n & 255) + "," + a + ")";
  }

  // alignedData: uPlot wants one x array and y arrays of its length.
  function alignedData(c) {
    if (c.x) {
      return [c.x].concat(c.series.map(function (s) { return s.y; }));
    }
    var tables = c.series.map(function (s) { return [s.x || [], s.y]; });
    return uPlot.join(tables);
  }

  // bandsPlugin shades the chart's x ranges (warm-up, measurement window,
  // events) under the series, with their labels when there is room; a band
  // whose start equals its end is a marker (a formula's ceiling): a dashed
  // vertical line in its colour over the series, with its label.
  function bandsPlugin(bands) {
    function clipped(u, paint) {
      var ctx = u.ctx, b = u.bbox;
      ctx.save();
      ctx.beginPath();
      ctx.rect(b.left, b.top, b.width, b.height);
      ctx.clip();
      paint(ctx, b);
      ctx.restore();
    }
    return {
      hooks: {
        drawClear: function (u) {
          clipped(u, function (ctx, b) {
            bands.forEach(function (band) {
              if (band.start === band.end) return;
              var x0 = u.valToPos(band.start, "x", true), x1 = u.valToPos(band.end, "x", true);
              if (!isFinite(x0) || !isFinite(x1) || x1 <= x0) return;
              ctx.fillStyle = alpha(band.color, 0.5);
              ctx.fillRect(x0, b.top, x1 - x0, b.height);
              if (x1 - x0 > 80 * uPlot.pxRatio) {
                ctx.fillStyle = "#666";
                ctx.font = (10 * uPlot.pxRatio) + "px system-ui, sans-serif";
                ctx.textBaseline = "top";
                ctx.fillText(band.label, x0 + 3 * uPlot.pxRatio, b.top + 3 * uPlot.pxRatio);
              }
            });
          });
        },
        draw: function (u) {
          clipped(u, function (ctx, b) {
            var px = uPlot.pxRatio;
            bands.forEach(function (band) {
              if (band.start !== band.end) return;
              var x0 = u.valToPos(band.start, "x", true);
              if (!isFinite(x0)) return;
              ctx.strokeStyle = band.color;
              ctx.lineWidth = 2 * px;
              ctx.setLineDash([6 * px, 4 * px]);
              ctx.beginPath();
              ctx.moveTo(x0, b.top);
              ctx.lineTo(x0, b.top + b.height);
              ctx.stroke();
              ctx.setLineDash([]);
              ctx.fillStyle = band.color;
              ctx.font = (11 * px) + "px system-ui, sans-serif";
              ctx.textBaseline = "top";
              // the label beside the line, on the side with room for it
              var w = ctx.measureText(band.label).width, y = b.top + 3 * px + 14 * px * (band.row || 0);
              ctx.textAlign = x0 + 4 * px + w > b.left + b.width ? "right" : "left";
              ctx.fillText(band.label, ctx.textAlign === "right" ? x0 - 4 * px : x0 + 4 * px, y);
              ctx.textAlign = "left";
            });
          });
        }
      }
    };
  }

  // wheelPlugin: wheel zooms x around the pointer, shift + wheel or a
  // horizontal swipe pans (in pixels, so log axes zoom evenly too).
  function wheelPlugin() {
    return {
      hooks: {
        ready: function (u) {
          u.over.addEventListener("wheel", function (e) {
            e.preventDefault();
            var w = u.over.clientWidth, l = u.cursor.left;
            if (l == null || l < 0) l = w / 2;
            var lo, hi;
            if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
              var d = 0.1 * w * Math.sign(e.deltaX || e.deltaY);
              lo = d; hi = w + d;
            } else {
              var f = e.deltaY < 0 ? 0.75 : 1 / 0.75;
              lo = l - l * f; hi = l + (w - l) * f;
            }
            u.setScale("x", { min: u.posToVal(lo, "x"), max: u.posToVal(hi, "x") });
          }, { passive: false });
        }
      }
    };
  }

  function options(c, fig, width) {
    var xScale = { time: c.kind === "history" };
    var xAxis = { label: c.xLabel, stroke: "#333", grid: { stroke: "#eee" } };
    var xSeries = { label: c.xLabel };
    if (c.kind === "percentile") {
      xScale = { time: false, distr: 3, log: 10 };
      xAxis.splits = function () { return [1, 10, 100, 1000, 10000]; };
      xAxis.values = function (u, splits) { return splits.map(pctLabel); };
      xSeries = { label: "percentile", value: function (u, v) { return pctLabel(v); } };
    } else if (c.kind === "category") {
      var n = c.categories.length;
      xScale = { time: false, range: function () { return [-0.3, n - 0.7]; } };
      xAxis.splits = function () { return c.categories.map(function (_, i) { return i; }); };
      xAxis.values = function (u, splits) { return splits.map(function (i) { return c.categories[i]; }); };
      xSeries = { label: c.xLabel, value: function (u, v) { return v == null ? "–" : c.categories[v]; } };
    } else if (c.kind === "history") {
      xSeries = { label: "campaign", value: function (u, v, si, idx) {
        if (v == null) return "–";
        return dateLabel(v) + (c.notes && idx != null && c.notes[idx] ? " " + c.notes[idx] : "");
      } };
    } else if (c.kind === "time") {
      xScale = { time: false };
      xSeries.value = function (u, v) { return v == null ? "–" : fmt(v) + " s"; };
    } else {
      xScale = { time: false };
      xSeries.value = function (u, v) { return fmt(v); };
    }
    var yScale = c.yLog ? { distr: 3, log: 10 } : { range: function (u, lo, hi) { return [Math.min(0, lo), hi > 0 ? hi * 1.05 : 1]; } };
    var yAxis = { label: c.yLabel, stroke: "#333", grid: { stroke: "#eee" }, size: 60,
      values: function (u, splits) { return splits.map(fmt); } };
    if (c.yLog) {
      // decades only: 0.1, 1, 10, … ms
      yAxis.filter = function (u, splits) {
        return splits.map(function (v) { return Math.abs(Math.log10(v) % 1) < 1e-9 ? v : null; });
      };
    }
    var showPoints = c.kind !== "time" && c.kind !== "percentile";
    var series = [xSeries];
    var bands = [];
    var hiIdx = -1, loIdx = -1;
    c.series.forEach(function (s, i) {
      var o = {
        label: s.label, stroke: s.color, width: 1.8, spanGaps: true,
        value: function (u, v) { return fmt(v); },
        points: { show: showPoints || s.points, size: s.points ? 9 : 5, fill: s.color }
      };
      if (s.dash) o.dash = [6, 4];
      if (s.points) { o.paths = function () { return null; }; o.width = 0; }
      if (s.noiseHi || s.noiseLo) { o.width = 1; o.stroke = alpha(s.color, 0.6); o.points = { show: false }; }
      if (s.noiseHi) hiIdx = i + 1;
      if (s.noiseLo) loIdx = i + 1;
      series.push(o);
    });
    if (hiIdx > 0 && loIdx > 0) {
      bands.push({ series: [hiIdx, loIdx], fill: alpha(c.series[hiIdx - 1].color, 0.15) });
    }
    var plugins = [wheelPlugin()];
    if (c.bands && c.bands.length) plugins.unshift(bandsPlugin(c.bands));
    var opts = {
      width: width, height: 280,
      scales: { x: xScale, y: yScale },
      axes: [xAxis, yAxis],
      series: series, bands: bands, plugins: plugins,
      cursor: { drag: { x: true, y: false, setScale: true } },
      legend: { live: true }
    };
    if (c.kind === "history") {
      // campaign starts are UTC, as the tables print them
      opts.tzDate = function (ts) { return uPlot.tzDate(new Date(ts * 1000), "Etc/UTC"); };
    }
    return opts;
  }

  // visiblePoints counts the finite values of shown series inside the x range drawn.
  function visiblePoints(u) {
    var xs = u.data[0], lo = u.scales.x.min, hi = u.scales.x.max, n = 0;
    for (var i = 1; i < u.data.length; i++) {
      if (!u.series[i].show) continue;
      var ys = u.data[i];
      for (var j = 0; j < xs.length; j++) {
        if (ys[j] != null && isFinite(ys[j]) && xs[j] >= lo && xs[j] <= hi) n++;
      }
    }
    return n;
  }

  function draw(fig, c) {
    var plot = fig.querySelector(".plot");
    var width = Math.max(320, Math.min(fig.clientWidth || 560, 960));
    var u = new uPlot(options(c, fig, width), alignedData(c), plot);
    if (c.links && c.links.length) {
      u.over.style.cursor = "pointer";
      u.over.addEventListener("click", function () {
        var i = u.cursor.idx;
        if (i != null && c.links[i] && u.select.width === 0) window.location.href = c.links[i];
      });
    }
    return u;
  }

  // selftest hovers the middle of every chart and records the legend's
  // first value, as a reader would see it.
  function selftest(plots) {
    plots.forEach(function (p) {
      var u = p.u, left = Math.round(u.over.clientWidth / 2), top = Math.round(u.over.clientHeight / 2);
      // move to the nearest x that has a value, so the legend shows one
      var idx = u.posToIdx(left);
      var xs = u.data[0];
      for (var d = 0; d < xs.length; d++) {
        var hit = [idx - d, idx + d].find(function (j) {
          if (j < 0 || j >= xs.length) return false;
          for (var s = 1; s < u.data.length; s++) if (u.data[s][j] != null) return true;
          return false;
        });
        if (hit !== undefined) { left = u.valToPos(xs[hit], "x"); break; }
      }
      u.setCursor({ left: left, top: top });
      var vals = Array.prototype.map.call(p.fig.querySelectorAll(".u-legend .u-series .u-value"), function (e) { return e.textContent; });
      var shown = vals.slice(1).filter(function (v) { return v && v !== "–"; });
      p.fig.setAttribute("data-hover", shown.length ? vals[0] + " → " + shown[0] : "");
    });
  }

  function main() {
    var el = document.getElementById("chart-data");
    var charts = el ? JSON.parse(el.textContent) : [];
    var byId = {};
    charts.forEach(function (c) { byId[c.id] = c; });
    var plots = [];
    document.querySelectorAll("figure[data-chart]").forEach(function (fig) {
      var c = byId[fig.getAttribute("data-chart")];
      if (!c) { window.sharebenchErrors.push("no data for chart " + fig.getAttribute("data-chart")); return; }
      try {
        plots.push({ fig: fig, u: draw(fig, c) });
      } catch (e) {
        window.sharebenchErrors.push(c.title + ": " + e);
      }
    });
    // uPlot commits its first draw in a microtask: read the results after it.
    setTimeout(function () {
      plots.forEach(function (p) { p.fig.setAttribute("data-points", String(visiblePoints(p.u))); });
      if (window.location.hash === "#selftest") selftest(plots);
      document.body.setAttribute("data-charts-drawn", String(plots.length));
      document.body.setAttribute("data-js-errors", String(window.sharebenchErrors.length));
      if (window.sharebenchErrors.length) {
        var pre = document.createElement("pre");
        pre.id = "js-errors";
        pre.textContent = window.sharebenchErrors.join("\n");
        document.body.appendChild(pre);
      }
    }, 0);
  }

  try {
    main();
  } catch (e) {
    window.sharebenchErrors.push(String(e));
    document.body.setAttribute("data-js-errors", String(window.sharebenchErrors.length));
  }
})();
