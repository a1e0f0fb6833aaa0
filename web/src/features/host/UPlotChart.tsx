// A uPlot chart that fills its container's width and follows it (ResizeObserver).
// uPlot and its CSS are imported only here, inside the host page's lazy chunk.
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import './host.css';

export interface UPlotChartProps {
  /** Builds the options for a given width; called again when they change (language, units). */
  options: (width: number) => uPlot.Options;
  data: uPlot.AlignedData;
  /** Accessible description of the chart. */
  label: string;
}

export function UPlotChart({ options, data, label }: UPlotChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const dataRef = useRef(data);

  const empty = (data[0]?.length ?? 0) === 0;

  // (Re)create the chart when the options change; never for no points (an
  // empty time axis would invent labels): the caller shows its empty state.
  useEffect(() => {
    const el = box.current;
    if (!el || empty) return;
    const width = Math.max(200, el.clientWidth);
    const u = new uPlot(options(width), dataRef.current, el);
    plot.current = u;
    let frame = 0;
    const ro = new ResizeObserver(() => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => {
        const w = Math.max(200, el.clientWidth);
        if (w !== u.width) u.setSize({ width: w, height: u.height });
      });
    });
    ro.observe(el);
    return () => {
      cancelAnimationFrame(frame);
      ro.disconnect();
      u.destroy();
      plot.current = null;
    };
  }, [options, empty]);

  // New data into the existing chart.
  useEffect(() => {
    dataRef.current = data;
    plot.current?.setData(data);
  }, [data]);

  if (empty) return null;
  return <div ref={box} role="img" aria-label={label} className="hg-uplot" />;
}
