package soak

import (
	"fmt"
	"image/color"
	"io"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Plot draws one panel per finding's metric, two panels a row, as a PNG:
// the samples over minutes, the warm-up shaded apart by a dashed line, the
// early and late medians as horizontal lines, and the verdict in each
// panel's title.
func Plot(w io.Writer, title string, samples []Sample, findings []Finding, warmup time.Duration) error {
	const cols = 2
	rows := (len(findings) + cols - 1) / cols
	width, height := 16*vg.Centimeter*cols, 9*vg.Centimeter*vg.Length(rows)+vg.Centimeter
	c := vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(110))}
	dc := draw.New(c)

	// The run's title across the top.
	dc.FillText(headStyle(), vg.Point{X: width / 2, Y: height - vg.Centimeter/2}, title)
	body := draw.Crop(dc, 0, 0, 0, -vg.Centimeter)

	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Millimeter * 4, PadY: vg.Millimeter * 4,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 4}
	for i, f := range findings {
		p, err := panel(samples, f, warmup)
		if err != nil {
			return err
		}
		p.Draw(tiles.At(body, i%cols, i/cols))
	}
	_, err := c.WriteTo(w)
	return err
}

func headStyle() draw.TextStyle {
	f := plot.DefaultFont
	f.Size = vg.Points(14)
	return draw.TextStyle{Color: color.Black, Font: f, XAlign: draw.XCenter, YAlign: -0.5, Handler: plot.DefaultTextHandler}
}

func panel(samples []Sample, f Finding, warmup time.Duration) (*plot.Plot, error) {
	p := plot.New()
	verdict := "steady"
	if f.Grew {
		verdict = "GREW"
	}
	unit := ""
	if f.Metric.Unit != "" {
		unit = " " + f.Metric.Unit
	}
	p.Title.Text = fmt.Sprintf("%s: %s (%+.3g%s, allowed %.3g)", f.Metric.Title, verdict, f.Growth, unit, f.Allowed)
	if f.Metric.Load {
		p.Title.Text = fmt.Sprintf("%s (the load, not judged)", f.Metric.Title)
	}
	p.X.Label.Text = "minutes"
	p.Y.Label.Text = f.Metric.Unit
	var pts plotter.XYs
	var last float64
	for _, s := range samples {
		if v, ok := s.Values[f.Metric.Name]; ok {
			pts = append(pts, plotter.XY{X: s.At.Minutes(), Y: v})
			last = s.At.Minutes()
		}
	}
	line, err := plotter.NewLine(pts)
	if err != nil {
		return nil, err
	}
	line.Color = color.RGBA{R: 31, G: 94, B: 170, A: 255}
	line.Width = vg.Points(1.2)
	p.Add(plotter.NewGrid(), line)
	w := warmup.Minutes()
	for _, lvl := range []struct {
		y     float64
		from  float64
		color color.Color
	}{{f.Early, w, color.RGBA{G: 140, A: 255}}, {f.Late, w, color.RGBA{R: 200, G: 100, A: 255}}} {
		l, err := plotter.NewLine(plotter.XYs{{X: lvl.from, Y: lvl.y}, {X: last, Y: lvl.y}})
		if err != nil {
			return nil, err
		}
		l.Color = lvl.color
		l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(l)
	}
	// The warm-up's end.
	lo, hi := f.Early, f.Early
	for _, xy := range pts {
		lo, hi = min(lo, xy.Y), max(hi, xy.Y)
	}
	if hi == lo {
		hi = lo + 1
	}
	p.Y.Min = min(0, lo)
	p.Y.Max = hi * 1.1
	edge, err := plotter.NewLine(plotter.XYs{{X: w, Y: p.Y.Min}, {X: w, Y: p.Y.Max}})
	if err != nil {
		return nil, err
	}
	edge.Color = color.Gray{Y: 120}
	edge.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
	p.Add(edge)
	return p, nil
}
