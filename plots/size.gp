# Throughput of each variant of a family against problem size (each size a place of its own, in order
# of size), with the theoretical peak and the copy probe as lines.
# From render: scriptdir, term, outfile, width, height, title, xlabel, ylabel,
#   datafile one block per variant: a "variant" row, then rows: place value "size label"
#   nseries, colors (linetype of each block), dashed ("1": a library reference)
#   linefile one block per line: a "title" row, then its value; nlines;
#            linecolors, linedashes: the colour and dash type of each line
#   xmin, xmax
load scriptdir."/style.gp"

set title title
set xlabel xlabel offset 0, 0.4
set ylabel ylabel
set xrange [xmin:xmax]
set yrange [0:*]
set offsets 0, 0, graph 0.05, 0
# Under the chart: the full width goes to the sizes, whose names can be long (8191×4099).
set key below center horizontal Left reverse samplen 3 width 1 height 1

plot for [i=0:nseries - 1] datafile index i using 1:2:xtic(3) with linespoints \
         lt word(colors, i + 1) + 0 dt 1 + (word(dashed, i + 1) eq "1") title columnheader(1), \
     for [i=0:nlines - 1] linefile index i using (xmin):1:(xmax - xmin):(0) \
         with vectors nohead lw 1.5 dt 0 + word(linedashes, i + 1) lc rgb word(linecolors, i + 1) title columnheader(1)
