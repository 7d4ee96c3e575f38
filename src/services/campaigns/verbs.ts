import { defineVerb } from '../verbs/define'
import { NoInput } from '../verbs/schemas'
import { decideDueTests, pickWinner } from './ab-decide'
import { campaignAudience, countLaunchAudience } from './audience-size'
import {
  CampaignRef,
  CreateCampaignInput,
  LaunchCampaignInput,
  ListCampaignsInput,
  PickWinnerInput,
  UpdateCampaignInput,
} from './inputs'
import { cancelCampaign, launchCampaign, pauseCampaign, startDueCampaigns } from './launch'
import { localSchedule } from './local-schedule'
import { createCampaign, deleteCampaign, getCampaign, listCampaigns, updateCampaign } from './records'
import { campaignStats } from './stats'

export const listCampaignsVerb = defineVerb({
  name: 'campaigns.list',
  scope: 'any',
  input: ListCampaignsInput,
  mutates: false,
  run: async (ctx, input) => await listCampaigns(ctx, input),
})

export const createCampaignVerb = defineVerb({
  name: 'campaigns.create',
  scope: 'campaigns:write',
  input: CreateCampaignInput,
  mutates: true,
  run: async (ctx, { client_id, ...fields }) => await createCampaign(ctx, fields, client_id),
})

export const getCampaignVerb = defineVerb({
  name: 'campaigns.get',
  scope: 'any',
  input: CampaignRef,
  mutates: false,
  run: async (ctx, { id }) => await getCampaign(ctx, id),
})

export const updateCampaignVerb = defineVerb({
  name: 'campaigns.update',
  scope: 'campaigns:write',
  input: UpdateCampaignInput,
  mutates: true,
  run: async (ctx, { id, ...patch }) => await updateCampaign(ctx, id, patch),
})

export const deleteCampaignVerb = defineVerb({
  name: 'campaigns.delete',
  scope: 'campaigns:write',
  input: CampaignRef,
  mutates: true,
  destructive: true,
  run: async (ctx, { id }) => await deleteCampaign(ctx, id),
})

export const launchCampaignVerb = defineVerb({
  name: 'campaigns.launch',
  scope: 'campaigns:launch',
  input: LaunchCampaignInput,
  mutates: true,
  destructive: true,
  prepare: async (ctx, { id }) => await countLaunchAudience(ctx, id),
  run: async (ctx, { id, confirm }, counted) => await launchCampaign(ctx, id, { confirm }, counted),
})

export const pauseCampaignVerb = defineVerb({
  name: 'campaigns.pause',
  scope: 'campaigns:write',
  input: CampaignRef,
  mutates: true,
  run: async (ctx, { id }) => await pauseCampaign(ctx, id),
})

export const cancelCampaignVerb = defineVerb({
  name: 'campaigns.cancel',
  scope: 'campaigns:write',
  input: CampaignRef,
  mutates: true,
  destructive: true,
  run: async (ctx, { id }) => await cancelCampaign(ctx, id),
})

export const campaignStatsVerb = defineVerb({
  name: 'campaigns.stats',
  scope: 'any',
  input: CampaignRef,
  mutates: false,
  run: async (ctx, { id }) => await campaignStats(ctx, id),
})

/** The scheduler's job: scheduled campaigns whose time has come start (or fail, saying why). */
export const startScheduledCampaignsVerb = defineVerb({
  name: 'campaigns.start-scheduled',
  scope: 'admin:*',
  input: NoInput,
  mutates: true,
  run: async (ctx) => ({ started: await startDueCampaigns(ctx) }),
})

/**
 * How many recipients a launch now would copy (the portal's launch confirmation; portal-only
 * read: the REST launch answers with total_recipients itself).
 */
export const campaignAudienceVerb = defineVerb({
  name: 'campaigns.audience',
  scope: 'any',
  input: CampaignRef,
  mutates: false,
  prepare: async (ctx, { id }) => await campaignAudience(ctx, id),
  run: (_ctx, _input, audience) => audience,
})

/** The next zones a local-time campaign reaches and how many wait for each (portal-only read). */
export const campaignLocalScheduleVerb = defineVerb({
  name: 'campaigns.local-schedule',
  scope: 'any',
  input: CampaignRef,
  mutates: false,
  run: async (ctx, { id }) => await localSchedule(ctx, id),
})

/** An operator ends an A/B test early with the variant they choose. */
export const pickWinnerVerb = defineVerb({
  name: 'campaigns.pick-winner',
  scope: 'campaigns:launch',
  input: PickWinnerInput,
  mutates: true,
  run: async (ctx, { id, variant }) => await pickWinner(ctx, id, variant),
})

/** The decision job's verb: every A/B test whose duration has passed gets its winner. */
export const decideDueTestsVerb = defineVerb({
  name: 'campaigns.decide-ab-tests',
  scope: 'admin:*',
  input: NoInput,
  mutates: true,
  run: async (ctx) => await decideDueTests(ctx),
})
