# Shared look of every chart, loaded first by each script.
# Expects from the caller (render): term ("png" or "svg"), outfile, width, height (pixels).
if (term eq "svg") {
  set terminal svg size width,height dynamic noenhanced font "Helvetica,12" background rgb "white"
} else {
  set terminal pngcairo size width,height noenhanced font "Sans,10" background rgb "white"
}
set output outfile
set encoding utf8

# One colour and point type per variant, in registration order (colour-blind-safe
# Okabe-Ito, then tab10). Red is kept for regressions.
set linetype 1 lc rgb "#0072B2" lw 2 pt 7 ps 0.9
set linetype 2 lc rgb "#E69F00" lw 2 pt 5 ps 0.9
set linetype 3 lc rgb "#009E73" lw 2 pt 9 ps 1.1
set linetype 4 lc rgb "#CC79A7" lw 2 pt 11 ps 1.1
set linetype 5 lc rgb "#56B4E9" lw 2 pt 13 ps 1.1
set linetype 6 lc rgb "#8C564B" lw 2 pt 15 ps 1.0
set linetype 7 lc rgb "#7F7F7F" lw 2 pt 7 ps 0.9
set linetype 8 lc rgb "#BCBD22" lw 2 pt 5 ps 0.9
set linetype 9 lc rgb "#17BECF" lw 2 pt 9 ps 1.1
set linetype 10 lc rgb "#393B79" lw 2 pt 11 ps 1.1
set linetype cycle 10
regression_color = "#E41A1C"

set border 3 lc rgb "#444444"
set tics nomirror out
set grid ytics lc rgb "#DDDDDD" lw 1 dt 1
set title font ",13"
