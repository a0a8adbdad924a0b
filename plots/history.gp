# A family's figures over the runs recorded by `gate history`, one panel per
# problem size: a line per variant, its baseline median (dashed) and the band the
# gate allows (baseline +- threshold), regressions (verdict slower) circled red.
# From render: scriptdir, term, outfile, width, height, title, ylabel,
#   seriesfile  one index per panel; in it a block per variant, rows: run value slower variant
#   bandfile    one index per panel; rows: linetype low high baseline (NaN row: no baseline)
#   labelfile   rows: run "commit" "date" (empty labels are skipped to keep ticks readable)
#   npanels, nruns, panels (panel titles), variants (legend, by linetype), dashed ("1": a library reference)
#   header, panel, gap, footer: layout in pixels (render computes height from them)
load scriptdir."/style.gp"

set multiplot title title font ",13"
set lmargin at screen 90.0 / width
set rmargin at screen 1 - 30.0 / width
set xrange [0.5:nruns + 0.5]
set offsets 0, 0, graph 0.08, graph 0.08
set yrange [0<*:*]  # throughput is never negative, however the offsets pad
set ylabel ylabel
set xtics scale 0.5
set key at screen 0.5, screen 1 - 34.0 / height center top horizontal maxcols 4 Left reverse samplen 2.5 width 2

# Pixels to screen fractions (1.0 *: the sizes arrive as integers).
do for [p=1:npanels] {
  top = 1 - 1.0 * (header + (p - 1) * (panel + gap) + gap) / height
  set tmargin at screen top
  set bmargin at screen top - 1.0 * panel / height
  set title word(panels, p) font ",11" offset 0, -0.4
  if (p > 1) { unset key }
  if (p == npanels) { set xlabel "run (commit, date)" offset 0, -0.9 } else { unset xlabel }
  plot bandfile index (p - 1) using ((nruns + 1) / 2.0):(($2 + $3) / 2):(nruns / 2.0):(($3 - $2) / 2):1 \
           with boxxyerror fs transparent solid 0.15 noborder lc variable notitle, \
       bandfile index (p - 1) using (0.5):4:(nruns):(0):1 with vectors nohead dt 2 lw 1.5 lc variable notitle, \
       for [v=1:words(variants)] seriesfile index (p - 1) using 1:(column(4) == v ? $2 : NaN) with linespoints \
           lt v dt 1 + (word(dashed, v) eq "1") title word(variants, v), \
       seriesfile index (p - 1) using 1:($3 > 0 ? $2 : NaN) with points pt 6 ps 2.6 lw 2.5 \
           lc rgb regression_color notitle, \
       labelfile using 1:(NaN):xtic((p == npanels ? strcol(2)."\n".strcol(3) : "")) notitle, \
       keyentry with boxes fs transparent solid 0.3 noborder lc rgb "#888888" title "baseline ± allowed change", \
       keyentry with lines dt 2 lw 1.5 lc rgb "#555555" title "baseline median", \
       keyentry with points pt 6 ps 2 lw 2.5 lc rgb regression_color title "regression (verdict slower)"
}
unset multiplot
