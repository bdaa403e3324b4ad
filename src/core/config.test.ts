import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';

describe('loadConfig', () => {
  it('has the defaults of the operational contract', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      host: '127.0.0.1',
      port: 8080,
      dataDir: resolve('./data'),
      databaseUrl: undefined,
      bootstrapApiKey: undefined,
      publicUrl: 'http://127.0.0.1:8080',
      logLevel: 'info',
      bodyLimitBytes: 1024 * 1024,
      publicRateLimitPerMinute: 20,
      trustProxy: false,
      allowPrivateNetwork: false,
      llm: undefined,
    });
    expect(config.nodeName).toMatch(/:8080$/);
  });

  it('reads every variable', () => {
    const config = loadConfig({
      HOST: '0.0.0.0',
      PORT: '9000',
      PARLEY_DATA_DIR: '/tmp/x',
      PARLEY_DATABASE_URL: 'postgres://u@h/db',
      PARLEY_BOOTSTRAP_API_KEY: 'abcdefghijklmnop',
      PARLEY_PUBLIC_URL: 'https://parley.example/',
      PARLEY_NODE_NAME: 'node-a',
      PARLEY_LOG_LEVEL: 'warn',
      PARLEY_LOG_PII: '1',
      PARLEY_BODY_LIMIT_BYTES: '4096',
      PARLEY_SHUTDOWN_TIMEOUT_MS: '500',
      PARLEY_PUBLIC_RATE_LIMIT_PER_MINUTE: '120',
      PARLEY_TRUST_PROXY: '1',
      PARLEY_WS_MEDIA: 'off',
      PARLEY_SIP_PORT: '5070',
      PARLEY_SIP_PUBLIC_ADDRESS: '203.0.113.5',
      PARLEY_SIP_TRANSPORTS: 'udp',
      PARLEY_RTP_PORT_MIN: '30000',
      PARLEY_RTP_PORT_MAX: '30999',
      PARLEY_SIP_RING_TIMEOUT_MS: '45000',
      PARLEY_RTP_TIMEOUT_MS: '20000',
      PARLEY_SIP_RATE_LIMIT_PER_SECOND: '250',
    });
    expect(config).toEqual({
      host: '0.0.0.0',
      port: 9000,
      dataDir: '/tmp/x',
      databaseUrl: 'postgres://u@h/db',
      bootstrapApiKey: 'abcdefghijklmnop',
      publicUrl: 'https://parley.example',
      nodeName: 'node-a',
      logLevel: 'warn',
      logPii: true,
      bodyLimitBytes: 4096,
      shutdownTimeoutMs: 500,
      publicRateLimitPerMinute: 120,
      trustProxy: true,
      llm: undefined,
      twilio: undefined,
      simSpeed: 1,
      simMode: 'audio',
      vad: 'energy',
      wsMedia: false,
      wsMediaSender: 'worker',
      inboundWebhookTimeoutMs: 2500,
      allowPrivateNetwork: false,
      sip: {
        listenAddress: '0.0.0.0',
        port: 5070,
        transports: ['udp'],
        publicAddress: '203.0.113.5',
        rtpPortMin: 30_000,
        rtpPortMax: 30_999,
        ringTimeoutMs: 45_000,
        rtpTimeoutMs: 20_000,
        rateLimitPerSecond: 250,
      },
      speech: { vendors: {}, stt: [], tts: [] },
      maxEventLoopLagMs: 100,
      maxEventLoopBusyPercent: 0,
      maxNewCallsPerSecond: 0,
      callLoadTargetPercent: 60,
      nodeDeadAfterMs: 30_000,
    });
  });

  it('runs SIP on HOST:5060 by default, and not at all with PARLEY_SIP=off', () => {
    expect(loadConfig({}).sip).toEqual({
      listenAddress: '127.0.0.1',
      port: 5060,
      transports: ['udp', 'tcp'],
      publicAddress: '127.0.0.1',
      rtpPortMin: 20_000,
      rtpPortMax: 29_999,
      ringTimeoutMs: 60_000,
      rtpTimeoutMs: 30_000,
      rateLimitPerSecond: 10,
    });
    expect(loadConfig({ HOST: '0.0.0.0' }).sip?.publicAddress).toBe('127.0.0.1');
    expect(loadConfig({ PARLEY_SIP: 'off' }).sip).toBeUndefined();
  });

  it('chooses who writes WebSocket media frames', () => {
    expect(loadConfig({}).wsMediaSender).toBe('worker');
    expect(loadConfig({ PARLEY_WS_MEDIA_SENDER: 'main' }).wsMediaSender).toBe('main');
    expect(loadConfig({ PARLEY_WS_MEDIA_SENDER: 'worker' }).wsMediaSender).toBe('worker');
  });

  it('configures Twilio messaging from an account SID and an auth token', () => {
    expect(loadConfig({ PARLEY_TWILIO_ACCOUNT_SID: 'AC1', PARLEY_TWILIO_AUTH_TOKEN: 'tok' }).twilio).toEqual({
      accountSid: 'AC1',
      authToken: 'tok',
      baseUrl: 'https://api.twilio.com',
    });
    expect(
      loadConfig({
        PARLEY_TWILIO_ACCOUNT_SID: 'AC1',
        PARLEY_TWILIO_AUTH_TOKEN: 'tok',
        PARLEY_TWILIO_BASE_URL: 'http://127.0.0.1:9999/',
      }).twilio,
    ).toEqual({ accountSid: 'AC1', authToken: 'tok', baseUrl: 'http://127.0.0.1:9999' });
  });

  it('configures an OpenAI-compatible LLM from a base URL or a key', () => {
    expect(
      loadConfig({ PARLEY_LLM_BASE_URL: 'http://127.0.0.1:11434/v1/', PARLEY_LLM_MODEL: 'llama3' }).llm,
    ).toEqual({
      baseUrl: 'http://127.0.0.1:11434/v1',
      apiKey: 'not-needed',
      model: 'llama3',
    });
    expect(loadConfig({ PARLEY_LLM_API_KEY: 'sk-x' }).llm).toEqual({
      baseUrl: 'https://api.openai.com/v1',
      apiKey: 'sk-x',
      model: 'gpt-4.1-mini',
    });
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ PARLEY_DATABASE_URL: 'mysql://x' }, 'PARLEY_DATABASE_URL'],
    [{ PARLEY_BOOTSTRAP_API_KEY: 'short' }, 'PARLEY_BOOTSTRAP_API_KEY'],
    [{ PARLEY_BOOTSTRAP_API_KEY: 'has a space in it here' }, 'PARLEY_BOOTSTRAP_API_KEY'],
    [{ PARLEY_LOG_LEVEL: 'loud' }, 'PARLEY_LOG_LEVEL'],
    [{ PARLEY_LOG_PII: 'yes' }, 'PARLEY_LOG_PII'],
    [{ PARLEY_PUBLIC_URL: 'not a url' }, 'PARLEY_PUBLIC_URL'],
    [{ PARLEY_LLM_BASE_URL: 'ftp://x' }, 'PARLEY_LLM_BASE_URL'],
    [{ PARLEY_LLM_MODEL: 'gpt-4.1' }, 'PARLEY_LLM_MODEL'],
    [{ PARLEY_PUBLIC_RATE_LIMIT_PER_MINUTE: '0' }, 'PARLEY_PUBLIC_RATE_LIMIT_PER_MINUTE'],
    [{ PARLEY_TRUST_PROXY: 'maybe' }, 'PARLEY_TRUST_PROXY'],
    [{ PARLEY_TWILIO_ACCOUNT_SID: 'AC1' }, 'PARLEY_TWILIO_AUTH_TOKEN'],
    [{ PARLEY_TWILIO_AUTH_TOKEN: 'tok' }, 'PARLEY_TWILIO_ACCOUNT_SID'],
    [{ PARLEY_TWILIO_BASE_URL: 'http://x' }, 'PARLEY_TWILIO_BASE_URL'],
    [{ PARLEY_SIM_SPEED: '-1' }, 'PARLEY_SIM_SPEED'],
    [{ PARLEY_SIM_SPEED: 'fast' }, 'PARLEY_SIM_SPEED'],
    [{ PARLEY_SIM_MODE: 'video' }, 'PARLEY_SIM_MODE'],
    [{ PARLEY_VAD: 'webrtc' }, 'PARLEY_VAD'],
    [{ PARLEY_WS_MEDIA_SENDER: 'thread' }, 'PARLEY_WS_MEDIA_SENDER'],
    [{ PARLEY_WS_MEDIA: 'yes' }, 'PARLEY_WS_MEDIA'],
    [{ PARLEY_INBOUND_WEBHOOK_TIMEOUT_MS: '50' }, 'PARLEY_INBOUND_WEBHOOK_TIMEOUT_MS'],
    [{ PARLEY_SIP: 'yes' }, 'PARLEY_SIP'],
    [{ PARLEY_SIP_PORT: '65536' }, 'PARLEY_SIP_PORT'],
    [{ PARLEY_SIP_LISTEN_ADDRESS: 'sip.example.com' }, 'PARLEY_SIP_LISTEN_ADDRESS'],
    [{ PARLEY_SIP_PUBLIC_ADDRESS: 'nat' }, 'PARLEY_SIP_PUBLIC_ADDRESS'],
    [{ PARLEY_SIP_TRANSPORTS: 'udp,tls' }, 'PARLEY_SIP_TRANSPORTS'],
    [{ PARLEY_RTP_PORT_MIN: '40000', PARLEY_RTP_PORT_MAX: '30000' }, 'PARLEY_RTP_PORT_MAX'],
    [{ PARLEY_RTP_TIMEOUT_MS: '5' }, 'PARLEY_RTP_TIMEOUT_MS'],
    [{ PARLEY_SIP_RATE_LIMIT_PER_SECOND: '0' }, 'PARLEY_SIP_RATE_LIMIT_PER_SECOND'],
    [{ PARLEY_NODE_DEAD_AFTER_MS: '500' }, 'PARLEY_NODE_DEAD_AFTER_MS'],
    [
      { PARLEY_TWILIO_ACCOUNT_SID: 'AC1', PARLEY_TWILIO_AUTH_TOKEN: 't', PARLEY_TWILIO_BASE_URL: 'ftp://x' },
      'PARLEY_TWILIO_BASE_URL',
    ],
  ])('refuses %o naming the variable', (env, name) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(name);
  });
});
