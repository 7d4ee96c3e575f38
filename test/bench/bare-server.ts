// Written by test/bench/run.ts: the bare Elysia baseline for the throughput bar. Do not edit.
import { Elysia } from 'elysia'

new Elysia().get('/', () => 'hello').listen({ port: Number(process.env.PORT), hostname: '127.0.0.1' })
