import type { Static, TSchema } from '@sinclair/typebox'
import type { AppContext, Ctx } from '../context'
import type { Scope } from '../lib/scopes'
import type { Upload } from './middleware/upload'

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE'

interface OperationBase<B extends TSchema | undefined, Q extends TSchema | undefined> {
  /** operationId in OpenAPI, and later the MCP tool name. */
  id: string
  method: HttpMethod
  /** OpenAPI-style path, exactly as the spec writes it: `/api/v1/clients/{id}`. */
  path: string
  tag: string
  summary: string
  description?: string
  body?: B
  query?: Q
  /** Schema of the whole 200 body (`{data: …}` for resources). */
  response: TSchema
  /** Path parameters that are not record ids (ids are parsed, and a non-id is 404). */
  rawParams?: readonly string[]
  /**
   * A body the handler streams itself (CSV uploads): the pipeline checks its type (415) and
   * declared size (413) but does not read it.
   */
  stream?: { contentTypes: readonly string[]; limit: number }
  /** MCP hints; reads are inferred from GET. */
  destructive?: boolean
}

export type Input<B, Q> = {
  params: Record<string, string>
  query: Q extends TSchema ? Static<Q> : Record<string, never>
  body: B extends TSchema ? Static<B> : undefined
  request: Request
  /** For `stream` operations: the body, already on disk and hashed. */
  upload?: Upload
}

/** An operation behind a credential: the one declaration feeds the scope check, OpenAPI and MCP. */
export interface AuthedOperation<
  B extends TSchema | undefined = TSchema | undefined,
  Q extends TSchema | undefined = TSchema | undefined,
> extends OperationBase<B, Q> {
  /** `any` = any valid credential (the spec's "default"); otherwise the scope required. */
  auth: 'any' | Scope
  handle(ctx: Ctx, input: Input<B, Q>): unknown
}

export interface PublicOperation<
  B extends TSchema | undefined = TSchema | undefined,
  Q extends TSchema | undefined = TSchema | undefined,
> extends OperationBase<B, Q> {
  auth: 'none'
  handle(ctx: AppContext, input: Input<B, Q>): unknown
}

export type Operation = AuthedOperation | PublicOperation

export function op<B extends TSchema | undefined = undefined, Q extends TSchema | undefined = undefined>(
  def: AuthedOperation<B, Q>,
): Operation {
  return def as unknown as Operation
}

export function publicOp<
  B extends TSchema | undefined = undefined,
  Q extends TSchema | undefined = undefined,
>(def: Omit<PublicOperation<B, Q>, 'auth'>): Operation {
  return { ...def, auth: 'none' } as unknown as Operation
}

export const isMutating = (o: Operation) => o.method !== 'GET'
