// Herald portal: the little behaviour htmx does not give. No inline script anywhere (the CSP
// forbids it); everything hangs off data- attributes, and every page works without this file.
;(() => {
  // <button data-copy="#selector">: copy the target's value (or text) to the clipboard.
  document.addEventListener('click', (event) => {
    const button = event.target instanceof Element ? event.target.closest('[data-copy]') : null
    if (!button) return
    const target = document.querySelector(button.getAttribute('data-copy'))
    if (!target) return
    const text = 'value' in target ? target.value : target.textContent
    const done = () => {
      const label = button.textContent
      button.textContent = 'Copied'
      setTimeout(() => {
        button.textContent = label
      }, 1500)
    }
    if (navigator.clipboard) navigator.clipboard.writeText(text).then(done, () => target.select?.())
    else target.select?.()
  })

  // <select data-autosubmit>: submit the form on change; its [data-autosubmit-hide] button is
  // only for browsers without JavaScript.
  const enhance = (root) => {
    for (const el of root.querySelectorAll('[data-autosubmit-hide]')) el.hidden = true
  }
  document.addEventListener('change', (event) => {
    const select = event.target instanceof Element ? event.target.closest('[data-autosubmit]') : null
    if (select?.form) select.form.requestSubmit()
  })

  // <dialog data-confirm-dialog> opened by <a data-confirm="#dialog-id">: a confirmation in
  // place; without JavaScript the link goes to the confirmation page instead.
  document.addEventListener('click', (event) => {
    const link = event.target instanceof Element ? event.target.closest('a[data-confirm]') : null
    if (!link) return
    const dialog = document.querySelector(link.getAttribute('data-confirm'))
    if (!(dialog instanceof HTMLDialogElement)) return
    event.preventDefault()
    dialog.showModal()
  })
  document.addEventListener('click', (event) => {
    const close = event.target instanceof Element ? event.target.closest('[data-close-dialog]') : null
    close?.closest('dialog')?.close()
  })

  // After an htmx swap, move focus to the new content so keyboard and screen-reader users follow.
  document.addEventListener('htmx:afterSwap', (event) => {
    enhance(event.target)
    if (event.target.id === 'main') event.target.focus({ preventScroll: true })
  })
  document.addEventListener('DOMContentLoaded', () => enhance(document))
})()
