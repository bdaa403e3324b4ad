/** Builds the console into console/dist; resolves to the names of the script and stylesheet. */
export function buildConsole(): Promise<{ js?: string; css?: string }>;
