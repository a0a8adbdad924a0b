# The ladder of a kernel family: its variants side by side at one problem size,
# with library references, the copy probe and the theoretical peak as lines.
# From render: scriptdir, term, outfile, width, height, title,
#   barfile  rows: "variant" value "bar label"
#   linefile one block per line: a "title" row, then its value;
#            linecolors, linedashes: the colour and dash type of each line
#   nbars, nlines, ymax, ylabel,
#   y2factor, y2label: right axis = left axis x y2factor (0: no right axis)
load scriptdir."/style.gp"

set title title
set ylabel ylabel
set yrange [0:ymax]
# Many bars: names slanted, and room on the left for the first one's.
xlo = nbars > 6 ? -1.4 : -0.6
set xrange [xlo:nbars - 0.4]
set style fill solid 0.85 border lc rgb "#333333"
set boxwidth 0.6
set xtics scale 0
if (nbars > 6) { set xtics rotate by 25 right }
if (y2factor > 0) {
  set y2label y2label
  set y2range [0:ymax * y2factor]
  set y2tics out nomirror
}
# Line titles go under the chart, never over a bar.
set key below center horizontal Left reverse samplen 3

# Values over the bars, on white so that a line crossing them does not hide them.
set style textbox opaque noborder margins 2, 1

plot barfile using 0:2:xtic(1) with boxes lt 1 notitle, \
     for [i=0:nlines - 1] linefile index i using (xlo):1:(nbars - 0.4 - xlo):(0) \
         with vectors nohead lw 2 dt 0 + word(linedashes, i + 1) lc rgb word(linecolors, i + 1) title columnheader(1), \
     barfile using 0:2:3 with labels boxed center offset 0,1.9 notitle
