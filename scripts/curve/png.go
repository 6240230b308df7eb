package main

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"tabula/internal/atomicfile"
	"tabula/watch"
)

// palette matches the watch page's line colours.
var palette = []color.RGBA{
	{0x1f, 0x77, 0xb4, 0xff}, {0xd6, 0x27, 0x28, 0xff}, {0x2c, 0xa0, 0x2c, 0xff}, {0x94, 0x67, 0xbd, 0xff},
	{0xff, 0x7f, 0x0e, 0xff}, {0x8c, 0x56, 0x4b, 0xff}, {0xe3, 0x77, 0xc2, 0xff}, {0x17, 0xbe, 0xcf, 0xff},
}

// writePNGs draws each of the watch page's plots of metrics file path into
// dir/NAME.png and returns the files written.
func writePNGs(path, dir string) ([]string, error) {
	recs, err := watch.ReadMetrics(path)
	if err != nil {
		return nil, err
	}
	plots := watch.Plots(recs)
	if len(plots) == 0 {
		return nil, fmt.Errorf("%s: no iteration with figures to plot", path)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var files []string
	for _, p := range plots {
		b, err := renderPNG(p)
		if err != nil {
			return files, fmt.Errorf("plot %s: %w", p.Name, err)
		}
		f := filepath.Join(dir, p.Name+".png")
		if err := atomicfile.Write(f, b); err != nil {
			return files, err
		}
		files = append(files, f)
	}
	return files, nil
}

// renderPNG draws one plot, 16 x 9 cm at 150 dpi.
func renderPNG(wp watch.Plot) ([]byte, error) {
	p := plot.New()
	p.Title.Text = wp.Title
	p.X.Label.Text = "run time (minutes)"
	p.Y.Label.Text = wp.YLabel
	p.Legend.Top = true
	p.Legend.Left = true
	p.Legend.XOffs = vg.Points(10)
	p.Add(plotter.NewGrid())
	for i, l := range wp.Lines {
		c := palette[i%len(palette)]
		if band := bandPolygon(l); band != nil {
			poly, err := plotter.NewPolygon(band)
			if err != nil {
				return nil, err
			}
			poly.Color = color.NRGBA{c.R, c.G, c.B, 0x40}
			poly.LineStyle.Width, poly.LineStyle.Color = 0, color.Transparent
			p.Add(poly)
		}
		var xy plotter.XYs
		for k := range l.X {
			if finite(l.X[k]) && finite(l.Y[k]) {
				xy = append(xy, plotter.XY{X: l.X[k], Y: l.Y[k]})
			}
		}
		if len(xy) == 0 {
			continue
		}
		line, points, err := plotter.NewLinePoints(xy)
		if err != nil {
			return nil, err
		}
		line.Color, line.Width = c, vg.Points(1.5)
		points.Color, points.Shape, points.Radius = c, draw.CircleGlyph{}, vg.Points(2)
		p.Add(line, points)
		p.Legend.Add(l.Label, line)
	}
	// Room above the data for the legend.
	p.Y.Max += 0.08 * float64(len(wp.Lines)+1) * (p.Y.Max - p.Y.Min)
	img := vgimg.NewWith(vgimg.UseWH(16*vg.Centimeter, 9*vg.Centimeter), vgimg.UseDPI(150))
	p.Draw(draw.New(img))
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// bandPolygon is the confidence band of l: along the highs and back along
// the lows, over the points that have both; nil without a band.
func bandPolygon(l watch.Line) plotter.XYs {
	if l.Low == nil || l.High == nil {
		return nil
	}
	var up, down plotter.XYs
	for k := range l.X {
		if finite(l.X[k]) && finite(l.Low[k]) && finite(l.High[k]) {
			up = append(up, plotter.XY{X: l.X[k], Y: l.High[k]})
			down = append(down, plotter.XY{X: l.X[k], Y: l.Low[k]})
		}
	}
	if len(up) == 0 {
		return nil
	}
	for k := len(down) - 1; k >= 0; k-- {
		up = append(up, down[k])
	}
	return up
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
