package net.cheetah.cli.simulate;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A hand-written SVG line chart: series of points with 95 % CI error bars, linear or log x, a
 * legend. Enough for the fidelity figures without a plotting dependency.
 */
public final class SvgChart {
  /** One line of points; ci holds the half-widths of the error bars (zero for none). */
  public record Series(String name, String color, double[] x, double[] y, double[] ci) {}

  private static final int WIDTH = 640;
  private static final int HEIGHT = 420;
  private static final int LEFT = 78;
  private static final int RIGHT = 20;
  private static final int TOP = 40;
  private static final int BOTTOM = 56;

  private SvgChart() {}

  public static String render(
      String title, String xLabel, String yLabel, boolean logX, List<Series> series) {
    double xMin = Double.POSITIVE_INFINITY;
    double xMax = Double.NEGATIVE_INFINITY;
    double yMax = 0;
    double yMin = Double.POSITIVE_INFINITY;
    for (Series s : series) {
      for (int i = 0; i < s.x().length; i++) {
        xMin = Math.min(xMin, s.x()[i]);
        xMax = Math.max(xMax, s.x()[i]);
        yMax = Math.max(yMax, s.y()[i] + s.ci()[i]);
        yMin = Math.min(yMin, s.y()[i] - s.ci()[i]);
      }
    }
    if (!(xMax > xMin)) {
      xMax = xMin + 1;
    }
    // Start the y axis at 0 unless every point sits in the upper half (ratios near 1).
    double yLow = yMin > 0.5 * yMax ? yMin : 0;
    double[] yTicks = linearTicks(yLow, yMax > yLow ? yMax : yLow + 1);
    double yBottom = yTicks[0];
    double yTop = yTicks[yTicks.length - 1];
    double[] xTicks;
    if (logX) {
      xTicks = logTicks(xMin, xMax);
    } else {
      xTicks = linearTicks(Math.min(0, xMin), xMax);
      xMin = xTicks[0];
      xMax = xTicks[xTicks.length - 1];
    }
    Axis x = new Axis(xMin, xMax, logX, LEFT, WIDTH - RIGHT);
    Axis y = new Axis(yBottom, yTop, false, HEIGHT - BOTTOM, TOP);

    StringBuilder b = new StringBuilder();
    b.append(
        String.format(
            Locale.ROOT,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d"
                + " %d\" font-family=\"sans-serif\" font-size=\"12\">%n",
            WIDTH,
            HEIGHT,
            WIDTH,
            HEIGHT));
    b.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
    text(b, WIDTH / 2.0, 22, "middle", 15, title);
    text(b, (LEFT + WIDTH - RIGHT) / 2.0, HEIGHT - 14, "middle", 13, xLabel);
    b.append(
        String.format(
            Locale.ROOT,
            "<text x=\"18\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"13\""
                + " transform=\"rotate(-90 18 %.1f)\">%s</text>%n",
            (TOP + HEIGHT - BOTTOM) / 2.0,
            (TOP + HEIGHT - BOTTOM) / 2.0,
            escape(yLabel)));
    for (double t : yTicks) {
      double py = y.pixel(t);
      line(b, LEFT, py, WIDTH - RIGHT, py, "#e4e4e4", 1);
      text(b, LEFT - 6, py + 4, "end", 11, label(t));
    }
    for (double t : xTicks) {
      double px = x.pixel(t);
      line(b, px, TOP, px, HEIGHT - BOTTOM, "#e4e4e4", 1);
      text(b, px, HEIGHT - BOTTOM + 16, "middle", 11, label(t));
    }
    b.append(
        String.format(
            Locale.ROOT,
            "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#333\"/>%n",
            LEFT,
            TOP,
            WIDTH - LEFT - RIGHT,
            HEIGHT - TOP - BOTTOM));
    int legendY = TOP + 16;
    for (Series s : series) {
      StringBuilder path = new StringBuilder();
      for (int i = 0; i < s.x().length; i++) {
        double px = x.pixel(s.x()[i]);
        double py = y.pixel(s.y()[i]);
        path.append(i == 0 ? "M" : " L").append(String.format(Locale.ROOT, "%.1f %.1f", px, py));
        if (s.ci()[i] > 0) {
          double lo = y.pixel(Math.max(yBottom, s.y()[i] - s.ci()[i]));
          double hi = y.pixel(s.y()[i] + s.ci()[i]);
          line(b, px, lo, px, hi, s.color(), 1.2);
          line(b, px - 3, lo, px + 3, lo, s.color(), 1.2);
          line(b, px - 3, hi, px + 3, hi, s.color(), 1.2);
        }
        b.append(
            String.format(
                Locale.ROOT,
                "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>%n",
                px,
                py,
                s.color()));
      }
      b.append(
          String.format(
              Locale.ROOT,
              "<path d=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.8\"/>%n",
              path,
              s.color()));
      line(b, WIDTH - RIGHT - 210, legendY - 4, WIDTH - RIGHT - 186, legendY - 4, s.color(), 2.5);
      text(b, WIDTH - RIGHT - 180, legendY, "start", 12, s.name());
      legendY += 18;
    }
    return b.append("</svg>\n").toString();
  }

  private record Axis(double min, double max, boolean log, double from, double to) {
    double pixel(double v) {
      double f =
          log
              ? (Math.log(v) - Math.log(min)) / (Math.log(max) - Math.log(min))
              : (v - min) / (max - min);
      return from + f * (to - from);
    }
  }

  static double[] linearTicks(double min, double max) {
    double raw = (max - min) / 5;
    double mag = Math.pow(10, Math.floor(Math.log10(raw)));
    double step = mag;
    for (double m : new double[] {1, 2, 2.5, 5, 10}) {
      if (m * mag >= raw) {
        step = m * mag;
        break;
      }
    }
    double start = Math.floor(min / step) * step;
    List<Double> ticks = new ArrayList<>();
    for (double t = start; t < max + step * 0.999; t += step) {
      ticks.add(Math.abs(t) < step * 1e-9 ? 0 : t);
    }
    return ticks.stream().mapToDouble(Double::doubleValue).toArray();
  }

  private static double[] logTicks(double min, double max) {
    List<Double> ticks = new ArrayList<>();
    for (double decade = Math.pow(10, Math.floor(Math.log10(min))); decade <= max; decade *= 10) {
      for (double m : new double[] {1, 2, 5}) {
        double t = m * decade;
        if (t >= min * 0.999 && t <= max * 1.001) {
          ticks.add(t);
        }
      }
    }
    return ticks.stream().mapToDouble(Double::doubleValue).toArray();
  }

  private static String label(double v) {
    if (v == 0) {
      return "0";
    }
    double a = Math.abs(v);
    if (a >= 1e4 || a < 1e-2) {
      return String.format(Locale.ROOT, "%.3g", v).replaceAll("\\.?0+e", "e");
    }
    String s = String.format(Locale.ROOT, "%.4f", v);
    return s.replaceAll("0+$", "").replaceAll("\\.$", "");
  }

  private static void line(
      StringBuilder b, double x1, double y1, double x2, double y2, String color, double width) {
    b.append(
        String.format(
            Locale.ROOT,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\""
                + " stroke-width=\"%.1f\"/>%n",
            x1,
            y1,
            x2,
            y2,
            color,
            width));
  }

  private static void text(
      StringBuilder b, double x, double y, String anchor, int size, String content) {
    b.append(
        String.format(
            Locale.ROOT,
            "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-size=\"%d\">%s</text>%n",
            x,
            y,
            anchor,
            size,
            escape(content)));
  }

  private static String escape(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }
}
