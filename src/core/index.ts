export * from './errors.ts';
export * from './clock.ts';
export * from './ids.ts';
export * from './logger.ts';
export * from './phone.ts';
export * from './plans.ts';
export * from './config.ts';
export * from './http.ts';
