/** One line of `herald doctor`'s table. */
export interface DoctorCheck {
  name: string
  status: 'ok' | 'warn' | 'fail'
  detail: string
}

export const ok = (name: string, detail: string): DoctorCheck => ({ name, status: 'ok', detail })
export const warn = (name: string, detail: string): DoctorCheck => ({ name, status: 'warn', detail })
export const fail = (name: string, detail: string): DoctorCheck => ({ name, status: 'fail', detail })
