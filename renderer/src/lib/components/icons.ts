/** Stroke icons on a 24×24 grid (drawn for Fleet Desk), rendered by Icon.svelte. */
const circle = (cx: number, cy: number, r: number) => `M${cx - r} ${cy}a${r} ${r} 0 1 0 ${2 * r} 0a${r} ${r} 0 1 0 ${-2 * r} 0z`;

export const icons = {
  plus: ['M12 5v14', 'M5 12h14'],
  copy: [
    'M9.5 8.5h9a1 1 0 0 1 1 1v10a1 1 0 0 1-1 1h-9a1 1 0 0 1-1-1v-10a1 1 0 0 1 1-1z',
    'M15.5 5.5v-1a1 1 0 0 0-1-1h-9a1 1 0 0 0-1 1v10a1 1 0 0 0 1 1h1',
  ],
  check: ['M5 12.5l4.5 4.5L19 7.5'],
  x: ['M6.5 6.5l11 11', 'M17.5 6.5l-11 11'],
  alert: ['M12 3.8L2.8 19.6a.6.6 0 0 0 .5.9h17.4a.6.6 0 0 0 .5-.9L12 3.8z', 'M12 9.5v4.5', 'M12 17.2v.01'],
  info: [circle(12, 12, 9), 'M12 11v5.5', 'M12 7.8v.01'],
  error: [circle(12, 12, 9), 'M12 7.5v5.5', 'M12 16.3v.01'],
  refresh: ['M19.5 12a7.5 7.5 0 1 1-2.2-5.3', 'M19.5 4.5v4h-4'],
  key: [circle(8, 15, 3.8), 'M10.8 12.3L20 3.5', 'M16.5 7l2.5 2.5', 'M14 9.5l2 2'],
  building: ['M4.5 20.5v-15a1 1 0 0 1 1-1h8a1 1 0 0 1 1 1v15', 'M14.5 9.5h4a1 1 0 0 1 1 1v10', 'M3 20.5h18', 'M8 8.5h3', 'M8 12h3', 'M8 15.5h3'],
  server: ['M4.5 4.5h15v6h-15z', 'M4.5 13.5h15v6h-15z', 'M8 7.5h.01', 'M8 16.5h.01', 'M12 7.5h4', 'M12 16.5h4'],
  globe: [circle(12, 12, 9), 'M3 12h18', 'M12 3c2.5 2.6 3.8 5.6 3.8 9s-1.3 6.4-3.8 9', 'M12 3C9.5 5.6 8.2 8.6 8.2 12s1.3 6.4 3.8 9'],
  lock: ['M6 10.5h12a1 1 0 0 1 1 1v8a1 1 0 0 1-1 1H6a1 1 0 0 1-1-1v-8a1 1 0 0 1 1-1z', 'M8.5 10.5V7.5a3.5 3.5 0 0 1 7 0v3'],
  unlock: ['M6 10.5h12a1 1 0 0 1 1 1v8a1 1 0 0 1-1 1H6a1 1 0 0 1-1-1v-8a1 1 0 0 1 1-1z', 'M8.5 10.5V7.5a3.5 3.5 0 0 1 6.7-1.4'],
  power: ['M12 3.5v8', 'M6.7 6.8a7.5 7.5 0 1 0 10.6 0'],
  play: ['M8 5.5v13l10-6.5z'],
  chevronRight: ['M9.5 6l6 6-6 6'],
  chevronDown: ['M6 9.5l6 6 6-6'],
  layers: ['M12 3.5l8.5 4.5-8.5 4.5L3.5 8z', 'M3.5 12l8.5 4.5 8.5-4.5', 'M3.5 16l8.5 4.5 8.5-4.5'],
  clock: [circle(12, 12, 9), 'M12 7.5V12l3 2'],
  unplug: ['M3 21l4.5-4.5', 'M21 3l-4.5 4.5', 'M9.5 9.5l-2 2a3.5 3.5 0 0 0 5 5l2-2z', 'M14.5 14.5l2-2a3.5 3.5 0 0 0-5-5l-2 2z'],
} as const satisfies Record<string, readonly string[]>;

export type IconName = keyof typeof icons;
