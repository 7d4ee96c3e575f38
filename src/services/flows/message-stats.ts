import { sql } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { DIALECT } from '../../db/dialect'
import { rawRows } from '../../db/raw'

/** What a flow's messages of one send node did, each message counted once per column. */
export interface NodeMessageStats {
  queued: number
  sent: number
  delivered: number
  opened: number
  clicked: number
  replied: number
  bounced: number
  failed: number
}

const NONE: NodeMessageStats = {
  queued: 0,
  sent: 0,
  delivered: 0,
  opened: 0,
  clicked: 0,
  replied: 0,
  bounced: 0,
  failed: 0,
}

/** A flow's message figures per send node (through messages_flow_due_idx); zeros for a node without any. */
export async function messageStatsByNode(
  db: Db,
  flowId: string,
): Promise<(nodeId: string) => NodeMessageStats> {
  const rows =
    DIALECT === 'postgres'
      ? // A boolean has no sum there, and counts arrive as strings (bigint).
        (
          await rawRows<Record<keyof NodeMessageStats | 'node', string>>(
            db,
            sql`SELECT source_step AS node,
          count(*) FILTER (WHERE status IN ('queued', 'sending')) AS queued,
          count(sent_at) AS sent, count(delivered_at) AS delivered, count(opened_at) AS opened,
          count(clicked_at) AS clicked, count(replied_at) AS replied, count(bounced_at) AS bounced,
          count(*) FILTER (WHERE status = 'failed') AS failed
        FROM messages WHERE source_id = ${flowId} GROUP BY source_step`,
          )
        ).map(
          (r) =>
            Object.fromEntries(
              Object.entries(r).map(([k, v]) => [k, k === 'node' ? v : Number(v)]),
            ) as unknown as NodeMessageStats & { node: string },
        )
      : await db.all<NodeMessageStats & { node: string }>(
          sql`SELECT source_step AS node,
          sum(status IN ('queued', 'sending')) AS queued,
          count(sent_at) AS sent, count(delivered_at) AS delivered, count(opened_at) AS opened,
          count(clicked_at) AS clicked, count(replied_at) AS replied, count(bounced_at) AS bounced,
          sum(status = 'failed') AS failed
        FROM messages WHERE source_id = ${flowId} GROUP BY source_step`,
        )
  const byNode = new Map(rows.map(({ node, ...figures }) => [node, figures]))
  return (nodeId) => byNode.get(nodeId) ?? NONE
}
