package report

import (
	_ "embed"
	"html/template"
)

// UPlotVersion is the version of the uPlot chart library vendored in
// assets/ (MIT licence, assets/uPlot.LICENSE); assets/VERSIONS.md says
// where it came from and how to update it.
const UPlotVersion = "1.6.32"

var (
	//go:embed assets/uPlot.iife.min.js
	uplotJS string
	//go:embed assets/uPlot.min.css
	uplotCSS string
	//go:embed assets/charts.js
	chartsJS string
	//go:embed assets/charts.css
	chartsCSS string
	//go:embed charts.html.tmpl
	chartsTemplateText string
)

// chartPage is what the "charthead" and "chartdata" templates write into a
// page: the library, the page script and the charts' data.
type chartPage struct {
	Version   string
	Lib, Page template.JS
	CSS       template.CSS
	Charts    []*chart
}

func newChartPage(charts []*chart) chartPage {
	numberCharts(charts)
	if charts == nil {
		charts = []*chart{}
	}
	return chartPage{Version: UPlotVersion, Lib: template.JS(uplotJS), Page: template.JS(chartsJS),
		CSS: template.CSS(uplotCSS + "\n" + chartsCSS), Charts: charts}
}
