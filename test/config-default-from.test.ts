import { expect, test } from 'bun:test'
import { ConfigError, loadConfig } from '../src/config'

// The From address of capture/simulator mail from a client with no sender (issue 14, point 15).

const from = (env: Record<string, string>) => loadConfig({}, env).defaultFrom

test('unset: no-reply@ the public host when it is a domain name, else no-reply@herald.localhost', () => {
  expect(from({})).toBe('no-reply@herald.localhost')
  expect(from({ HERALD_PUBLIC_URL: 'http://127.0.0.1:8080' })).toBe('no-reply@herald.localhost')
  expect(from({ HERALD_PUBLIC_URL: 'http://[::1]:8080' })).toBe('no-reply@herald.localhost')
  expect(from({ HERALD_PUBLIC_URL: 'http://app.localhost:8080' })).toBe('no-reply@herald.localhost')
  expect(from({ HERALD_PUBLIC_URL: 'http://herald-box:8080' })).toBe('no-reply@herald.localhost')
  expect(from({ HERALD_PUBLIC_URL: 'https://Herald.Agency.example/' })).toBe('no-reply@herald.agency.example')
})

test('HERALD_DEFAULT_FROM wins and is validated', () => {
  expect(from({ HERALD_DEFAULT_FROM: ' News@Acme.Example ' })).toBe('News@acme.example')
  expect(
    from({ HERALD_DEFAULT_FROM: 'hello@acme.example', HERALD_PUBLIC_URL: 'https://herald.agency.example' }),
  ).toBe('hello@acme.example')
  for (const bad of [
    'nobody',
    '@acme.example',
    'a b@acme.example',
    'x@127.0.0.1',
    'x@localhost',
    'Ann <a@b.example>',
  ])
    expect(() => from({ HERALD_DEFAULT_FROM: bad }), bad).toThrow(
      new ConfigError(`HERALD_DEFAULT_FROM must be an email address such as news@example.com, got "${bad}"`),
    )
})
