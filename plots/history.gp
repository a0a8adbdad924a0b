# A family's history as change against the baseline, in %, one panel per problem size: a line per
# variant (up: slower), the band of the threshold each row was judged with, change points as
# triangles (up: slower), regressions (verdict slower) circled red.
# From render: scriptdir, term, outfile, width, height, title, ylabel,
#   seriesfile  one index per panel; in it a block per variant, rows: run delta% slower variant
#   bandfile    one index per panel; rows: run tightest% widest% (thresholds of its variants; steps)
#   markfile    one index per panel; rows: run level% variant up "step label"
#   labelfile   rows: run "commit" "date" (the labelled runs only)
#   npanels, nruns, panels (panel titles), ymins, ymaxs (per panel), nmarks (change points per panel),
#   maxmarklabels, withpoints (1: draw points), variants (legend, by linetype), dashed ("1": a library reference)
#   header, panel, gap, footer: layout in pixels (render computes height from them)
load scriptdir."/style.gp"

set multiplot title title font ",13"
set lmargin at screen 90.0 / width
set rmargin at screen 1 - 30.0 / width
set xrange [0.5:nruns + 0.5]
set ylabel ylabel
set xtics scale 0.5
set key at screen 0.5, screen 1 - 34.0 / height center top horizontal maxcols 2 Left reverse samplen 2.5 width 2
style = withpoints ? "linespoints" : "lines"

# Pixels to screen fractions (1.0 *: the sizes arrive as integers).
do for [p=1:npanels] {
  top = 1 - 1.0 * (header + (p - 1) * (panel + gap) + gap) / height
  set tmargin at screen top
  set bmargin at screen top - 1.0 * panel / height
  set yrange [word(ymins, p) + 0:word(ymaxs, p) + 0]
  set title word(panels, p) font ",11" offset 0, -0.4
  if (p > 1) { unset key }
  if (p == npanels) { set xlabel "run (commit, date)" offset 0, -0.9 } else { unset xlabel }
  labelled = word(nmarks, p) + 0 <= maxmarklabels
  plot bandfile index (p - 1) using 1:(-$3):3 with filledcurves fs transparent solid 0.12 noborder \
           lc rgb "#555555" notitle, \
       bandfile index (p - 1) using 1:(-$2):2 with filledcurves fs transparent solid 0.16 noborder \
           lc rgb "#555555" notitle, \
       0 with lines dt 2 lw 1.2 lc rgb "#555555" notitle, \
       for [v=1:words(variants)] seriesfile index (p - 1) using 1:(column(4) == v ? $2 : NaN) with @style \
           lt v dt 1 + (word(dashed, v) eq "1") title word(variants, v), \
       seriesfile index (p - 1) using 1:($3 > 0 ? $2 : NaN) with points pt 6 ps 2.6 lw 2.5 \
           lc rgb regression_color notitle, \
       markfile index (p - 1) using 1:($4 > 0 ? $2 : NaN):3 with points pt 9 ps 2.2 lc variable notitle, \
       markfile index (p - 1) using 1:($4 > 0 ? NaN : $2):3 with points pt 11 ps 2.2 lc variable notitle, \
       markfile index (p - 1) using 1:2:(labelled ? strcol(5) : "") with labels offset 0, 1.3 font ",9" notitle, \
       labelfile using 1:(NaN):xtic((p == npanels ? strcol(2)."\n".strcol(3) : "")) notitle, \
       keyentry with boxes fs transparent solid 0.3 noborder lc rgb "#888888" title "± threshold applied (tightest, widest)", \
       keyentry with lines dt 2 lw 1.2 lc rgb "#555555" title "baseline (0 %)", \
       keyentry with points pt 9 ps 1.6 lc rgb "#333333" title "change point (▲ slower, ▼ faster)", \
       keyentry with points pt 6 ps 2 lw 2.5 lc rgb regression_color title "regression (verdict slower)"
}
unset multiplot
