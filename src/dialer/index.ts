export * from './window.ts';
export * from './pacing.ts';
export * from './fairness.ts';
export * from './expiry.ts';
export { createDialer, type Dialer, type DialerOptions, type PlaceCallPort } from './dialer.ts';
