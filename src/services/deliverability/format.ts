// How rates read in advice sentences: "4.1 %" from 1 % up, "0.25 %" below (the complaint
// thresholds live there), and whole numbers with thousands separators.

export function pct(rate: number): string {
  const p = rate * 100
  return `${p >= 1 || p === 0 ? p.toFixed(1) : p.toFixed(2)} %`
}

export const num = (n: number) => n.toLocaleString('en-US')
