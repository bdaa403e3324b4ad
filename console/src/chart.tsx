import type { ComponentChildren } from 'preact';
import { useId } from 'preact/hooks';
import { Table } from './table.tsx';

// Two small SVG charts: columns for a series (calls per day) and bars for a breakdown (calls by
// status). Each is an image with a title and a one-sentence description for screen readers (the
// page gives the visible heading), and the same numbers in a table under a "Show the numbers"
// disclosure, so nothing is only drawn. Colours are presentation attributes (the console's
// security policy allows no inline styles); the SVG scales to its container through its viewBox,
// so it never scrolls sideways on a phone.

export interface Datum {
  label: string;
  value: number;
}

const ACCENT = '#0b5cad';
const MUTED = '#59636e';
const LINE = '#d0d7de';

const fmt = (n: number) => n.toLocaleString();

/** A round top for the axis: 1, 2, 5 × 10^n at or above the largest value (at least 1). */
export function niceMax(max: number): number {
  if (!(max > 0)) return 1;
  const base = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 5, 10]) if (step * base >= max) return step * base;
  return 10 * base;
}

/** The sentence a screen reader hears for a chart: how many values, the largest and the total. */
function summary(data: Datum[], unit: string): string {
  if (data.length === 0) return 'No data.';
  const total = data.reduce((sum, d) => sum + d.value, 0);
  const top = data.reduce((best, d) => (d.value > best.value ? d : best));
  return `${fmt(data.length)} values, ${fmt(total)} ${unit} in all; the largest is ${top.label} with ${fmt(top.value)}.`;
}

function NumbersTable(props: { caption: string; data: Datum[]; labelHeading: string; valueHeading: string }) {
  return (
    <details class="chart-numbers">
      <summary>Show the numbers</summary>
      <Table label={props.caption} columns={[props.labelHeading, props.valueHeading]}>
        {props.data.map((d) => (
          <tr key={d.label}>
            <th scope="row">{d.label}</th>
            <td>{fmt(d.value)}</td>
          </tr>
        ))}
      </Table>
    </details>
  );
}

interface ChartProps {
  title: string;
  data: Datum[];
  /** What the values count, for the description: "calls", "minutes". */
  unit: string;
  /** The headings of the numbers' table. */
  labelHeading?: string;
  valueHeading?: string;
}

/** The drawing: an image named by the chart's title and described by its summary sentence. */
function ChartImage(props: {
  chart: ChartProps;
  width: number;
  height: number;
  children: ComponentChildren;
}) {
  const id = useId();
  return (
    <svg
      viewBox={`0 0 ${props.width} ${props.height}`}
      width="100%"
      role="img"
      aria-labelledby={`${id}-title ${id}-desc`}
      focusable="false"
    >
      <title id={`${id}-title`}>{props.chart.title}</title>
      <desc id={`${id}-desc`}>{summary(props.chart.data, props.chart.unit)}</desc>
      {props.children}
    </svg>
  );
}

/**
 * Vertical columns, one per item in order (a day, say). Labels under the columns are thinned to
 * about six so they never overlap; every label is in the table and in each column's tooltip.
 */
export function ColumnChart(props: ChartProps) {
  const { data } = props;
  const W = 520;
  const H = 220;
  const left = 40;
  const bottom = 28;
  const top = 12;
  const plotW = W - left - 8;
  const plotH = H - top - bottom;
  const max = niceMax(Math.max(0, ...data.map((d) => d.value)));
  const slot = data.length > 0 ? plotW / data.length : plotW;
  const barW = Math.max(1, Math.min(48, slot * 0.7));
  const every = Math.max(1, Math.ceil(data.length / 6));
  const y = (v: number) => top + plotH - (v / max) * plotH;
  return (
    <figure class="chart">
      <ChartImage chart={props} width={W} height={H}>
        {(Number.isInteger(max / 2) ? [0, 0.5, 1] : [0, 1]).map((f) => (
          <g key={f} aria-hidden="true">
            <line x1={left} x2={W - 8} y1={y(max * f)} y2={y(max * f)} stroke={LINE} stroke-width="1" />
            <text x={left - 6} y={y(max * f) + 4} text-anchor="end" font-size="13" fill={MUTED}>
              {fmt(max * f)}
            </text>
          </g>
        ))}
        {data.map((d, i) => {
          const x = left + i * slot + (slot - barW) / 2;
          const h = (d.value / max) * plotH;
          return (
            <g key={d.label}>
              <rect x={x} y={top + plotH - h} width={barW} height={h} fill={ACCENT}>
                <title>{`${d.label}: ${fmt(d.value)}`}</title>
              </rect>
              {i % every === 0 ? (
                <text
                  x={x + barW / 2}
                  y={H - 8}
                  text-anchor="middle"
                  font-size="13"
                  fill={MUTED}
                  aria-hidden="true"
                >
                  {d.label}
                </text>
              ) : null}
            </g>
          );
        })}
      </ChartImage>
      <NumbersTable
        caption={props.title}
        data={data}
        labelHeading={props.labelHeading ?? 'Day'}
        valueHeading={props.valueHeading ?? props.unit}
      />
    </figure>
  );
}

/** Horizontal bars, largest first as given, each labelled with its name and value. */
export function BarChart(props: ChartProps) {
  const { data } = props;
  const W = 520;
  const row = 28;
  const labelW = 170;
  const valueW = 50;
  const H = Math.max(1, data.length) * row + 4;
  const max = Math.max(1, ...data.map((d) => d.value));
  const plotW = W - labelW - valueW;
  return (
    <figure class="chart">
      {data.length === 0 ? (
        <p>No data for this range.</p>
      ) : (
        <ChartImage chart={props} width={W} height={H}>
          {data.map((d, i) => {
            const yTop = 2 + i * row;
            const w = (d.value / max) * plotW;
            return (
              <g key={d.label}>
                <text x={labelW - 8} y={yTop + 18} text-anchor="end" font-size="14" fill="#1b1f24">
                  {d.label.length > 22 ? `${d.label.slice(0, 21)}…` : d.label}
                </text>
                <rect
                  x={labelW}
                  y={yTop + 4}
                  width={Math.max(w, d.value > 0 ? 2 : 0)}
                  height={row - 8}
                  fill={ACCENT}
                >
                  <title>{`${d.label}: ${fmt(d.value)}`}</title>
                </rect>
                <text x={labelW + w + 6} y={yTop + 18} font-size="14" fill={MUTED}>
                  {fmt(d.value)}
                </text>
              </g>
            );
          })}
        </ChartImage>
      )}
      {data.length > 0 ? (
        <NumbersTable
          caption={props.title}
          data={data}
          labelHeading={props.labelHeading ?? 'Item'}
          valueHeading={props.valueHeading ?? props.unit}
        />
      ) : null}
    </figure>
  );
}
