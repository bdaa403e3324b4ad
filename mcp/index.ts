// Parley's MCP server: tools for agents, calls, campaigns, chats and simulations, acting through
// the public API with the key the MCP client gave (over stdio: `parley mcp`; over HTTP: /v2/mcp).
export { createParleyMcpServer, MCP_SERVER_NAME } from './server.ts';
export { answerMcpHttp } from './http.ts';
export { serveMcpOverStdio } from './stdio.ts';
